# DeepSpeed Ulysses `single_all_to_all`, transcribed from the original source;
# only the comm wrapper changes (`import deepspeed.comm as dist` ->
# `import torch.distributed as dist`: get_world_size and all_to_all_single have
# the same signatures). Everything else is copied line for line.
#
# Before PR 5664:
#   deepspeedai/DeepSpeed @ b33873d234cf6679a3046be9a137682c3469d1fb
#   (parent of the PR's merge commit 3bdd187e7186b60929d8ac5af483509b8cb9d00c),
#   deepspeed/sequence/layer.py L15-41, single_all_to_all
#   (the PR text links the same function at eda5075b88c448d13009301dc73653a224bb24b8
#   layer.py#L36, the line it changes).
# After PR 5664 ("Fixing the reshape bug in sequence parallel alltoall, which
# corrupted all QKV data (#5664)"):
#   deepspeedai/DeepSpeed @ 3bdd187e7186b60929d8ac5af483509b8cb9d00c,
#   deepspeed/sequence/layer.py L15-41, single_all_to_all. The whole diff is L36:
#   -        output = output.transpose(0, 1).contiguous()
#   +        output = output.transpose(0, 2).contiguous()
#
# Callers (DistributedAttention.forward at both commits, defaults scatter_idx=2,
# gather_idx=0, seq-first [s, b, h, d]):
#   query_layer = _SeqAllToAll.apply(self.spg, query, self.scatter_idx, self.gather_idx)   # seq -> heads
#   output = _SeqAllToAll.apply(self.spg, context_layer, self.gather_idx, self.scatter_idx)  # heads -> seq
# A batch-first caller ([b, s, h, d]) passes scatter_idx=2, gather_idx=1 and
# back scatter_idx=1, gather_idx=2.
import torch
import torch.distributed as dist


# deepspeed/sequence/layer.py L15-41 @ b33873d234cf6679a3046be9a137682c3469d1fb
def single_all_to_all_before_5664(input, scatter_idx, gather_idx, group):
    seq_world_size = dist.get_world_size(group)
    inp_shape = list(input.shape)
    inp_shape[scatter_idx] = inp_shape[scatter_idx] // seq_world_size
    if scatter_idx < 2:
        input_t = input.reshape(
            [seq_world_size, inp_shape[scatter_idx]] + \
            inp_shape[scatter_idx + 1:]
        ).contiguous()
    else:
        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        input_t = input.reshape(
            [-1, seq_world_size, inp_shape[scatter_idx]] + \
            inp_shape[scatter_idx + 1:]
        ).transpose(0, 1).contiguous()

    output = torch.empty_like(input_t)
    dist.all_to_all_single(output, input_t, group=group)

    # if scattering the seq-dim, transpose the heads back to the original dimension
    if scatter_idx < 2:
        output = output.transpose(0, 1).contiguous()

    return output.reshape(
        inp_shape[: gather_idx] + \
        [inp_shape[gather_idx] * seq_world_size,] + \
        inp_shape[gather_idx + 1:]).contiguous()


# deepspeed/sequence/layer.py L15-41 @ 3bdd187e7186b60929d8ac5af483509b8cb9d00c (PR 5664)
def single_all_to_all_after_5664(input, scatter_idx, gather_idx, group):
    seq_world_size = dist.get_world_size(group)
    inp_shape = list(input.shape)
    inp_shape[scatter_idx] = inp_shape[scatter_idx] // seq_world_size
    if scatter_idx < 2:
        input_t = input.reshape(
            [seq_world_size, inp_shape[scatter_idx]] + \
            inp_shape[scatter_idx + 1:]
        ).contiguous()
    else:
        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        input_t = input.reshape(
            [-1, seq_world_size, inp_shape[scatter_idx]] + \
            inp_shape[scatter_idx + 1:]
        ).transpose(0, 1).contiguous()

    output = torch.empty_like(input_t)
    dist.all_to_all_single(output, input_t, group=group)

    # if scattering the seq-dim, transpose the heads back to the original dimension
    if scatter_idx < 2:
        output = output.transpose(0, 2).contiguous()

    return output.reshape(
        inp_shape[: gather_idx] + \
        [inp_shape[gather_idx] * seq_world_size,] + \
        inp_shape[gather_idx + 1:]).contiguous()


CASES = [
    # seq-first, heads -> sequence (the second all-to-all): scatter_idx=0, gather_idx=2
    dict(name="sf-head2seq-before-5664",
         call="single_all_to_all_before_5664(X, 0, 2, GROUP)",
         dims="s,b,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/sf-head2seq-before-5664.sc", require=[]),
    dict(name="sf-head2seq-after-5664",
         call="single_all_to_all_after_5664(X, 0, 2, GROUP)",
         dims="s,b,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/sf-head2seq-after-5664.sc", require=[]),
    # seq-first, sequence -> heads (the first all-to-all): scatter_idx=2, gather_idx=0;
    # the scatter_idx >= 2 path is the same code before and after 5664
    dict(name="sf-seq2head-before-5664",
         call="single_all_to_all_before_5664(X, 2, 0, GROUP)",
         dims="s,b,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/sf-seq2head.sc", require=[]),
    dict(name="sf-seq2head-after-5664",
         call="single_all_to_all_after_5664(X, 2, 0, GROUP)",
         dims="s,b,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/sf-seq2head.sc", require=[]),
    # batch-first callers of the pre-5664 function
    dict(name="bf-head2seq-before-5664",
         call="single_all_to_all_before_5664(X, 1, 2, GROUP)",
         dims="b,s,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/bf-head2seq-before-5664.sc", require=[]),
    dict(name="bf-seq2head-before-5664",
         call="single_all_to_all_before_5664(X, 2, 1, GROUP)",
         dims="b,s,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/bf-seq2head-before-5664.sc", require=[]),
    # the same batch-first calls after 5664: the reshape that drops the batch
    # dim (head2seq) and the scatter_idx >= 2 path (seq2head) are unchanged by
    # the PR, so the pre-5664 specs cover them (bf-head2seq-before-5664.sc says so)
    dict(name="bf-head2seq-after-5664",
         call="single_all_to_all_after_5664(X, 1, 2, GROUP)",
         dims="b,s,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/bf-head2seq-before-5664.sc", require=[]),
    dict(name="bf-seq2head-after-5664",
         call="single_all_to_all_after_5664(X, 2, 1, GROUP)",
         dims="b,s,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/bf-seq2head-before-5664.sc", require=[]),
]

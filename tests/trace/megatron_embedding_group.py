# Megatron-LM's all-reduce of the tied word embedding's gradient over the
# embedding group, the first and the last pipeline stage: a group of listed
# ranks (new_group([first, last])), not a mesh dim's. Transcribed from
# NVIDIA/Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553
# (Apache-2.0):
#   megatron/core/parallel_state.py L560-566 default_embedding_ranks:
#     copied line for line;
#   the same file, L1269-1278 (initialize_model_parallel, the pipeline
#     groups' loop): the embedding group made from a pipeline group's ranks
#     (create_group as torch.distributed.new_group), here for a pipeline of
#     every rank (tensor and data parallel sizes 1), kept as the file's
#     _EMBEDDING_GROUP is: only on its members, None elsewhere;
#   L1863-1867 get_embedding_group(check_initialized=False): that global;
#   megatron/core/utils.py L636-647 get_pg_size: copied;
#   megatron/core/distributed/finalize_model_grads.py L216-258
#     _allreduce_embedding_grad: its test (the group's size and this rank's
#     membership) and the all-reduce of the gradient, copied; the model
#     chunks, DDP config and DTensor (un)sharding around it are left out:
#     the gradient is X, the rank's gradient of its copy of the embedding.
# Every rank holds a summand in these cases, so the middle stages' are
# left out of the sum from world 3: the traced spec is
# tests/specs/l3-group-list-middle.sc, written by hand for this group
# (`require P >= 2`, `all_reduce sum group=[0, P-1]`), and fails from
# world 3 as it does (its minimal h and value seed depend on the draws:
# a middle summand of zeros hides the fault, so only the verdict is
# compared; gloo checks every rank's values). In
# Megatron the middle stages hold no copy of the embedding (no summand),
# which the spec's input cannot say: the group is what is traced here.
import torch
import torch.distributed as dist


# megatron/core/parallel_state.py L560-566
def default_embedding_ranks(pp_ranks):
    """Return the default ranks that constitute the stages on which the word embeddings live.
    For most models, these are the first and last pipeline stages."""
    if len(pp_ranks) == 1:
        return [pp_ranks[0]]
    else:
        return [pp_ranks[0], pp_ranks[-1]]


# megatron/core/utils.py L636-647
def get_pg_size(group=None):
    if not torch.distributed.is_initialized() or group is None:
        return 1
    return group.size()


def embedding_group():
    # parallel_state.py L1269-1278, one pipeline group of every rank
    rank = dist.get_rank()
    ranks = list(range(dist.get_world_size()))
    embedding_ranks = default_embedding_ranks(ranks)
    group = dist.new_group(embedding_ranks)
    return group if rank in embedding_ranks else None


def allreduce_word_embedding_grads(grad):
    embd_group = embedding_group()
    # finalize_model_grads.py L216-222, L258
    if (
        get_pg_size(embd_group) > 1
        and torch.distributed.get_rank() in torch.distributed.get_process_group_ranks(embd_group)
    ):
        torch.distributed.all_reduce(grad, group=embd_group)
    return grad


CASES = [
    dict(name="megatron-embedding-group", call="allreduce_word_embedding_grads(X)", dims="v,h",
         input="partial sum", output="replicate only rank == 0 or rank == P-1", corpus=None, expect="fail",
         has=["require P >= 2", "all_reduce sum group=[0, P-1]"]),
]

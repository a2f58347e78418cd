# yunchang (feifeibear/long-context-attention) `all_to_all_4D`, the Ulysses
# all-to-all of USP, transcribed from the original source. The original already
# uses torch.distributed; the code is copied as is (docstring shortened).
#
# all_to_all_4D:
#   feifeibear/long-context-attention @ 56118e0d8fe377d43441226dd8bdd07135c92c22
#   (newest stored snapshot; the file last changed in 0665d0a36f290bb106e4ff8ed8de8a8146607833,
#   "remove useless tests and benchmarks (#134)"),
#   yunchang/comm/all_to_all.py L15-104. The `if seq_world_size > 1: ... else:
#   output = input_t` around the collective came with PR #87 (582a9f9c, "update
#   all_to_all"), `use_sync` with #93/#95.
# all_to_all_4D_bdef8783:
#   feifeibear/long-context-attention @ bdef8783dbafd5220767ec0dea3a68d8381166a2
#   (PR #50, the commit corpus/yunchang/usp-ulysses-ring-*-50.sc quote),
#   yunchang/comm/all_to_all.py L15-93: the same function without the world-1
#   branch and without use_sync.
#
# Callers: yunchang/hybrid/attn_layer.py LongContextAttention.forward /
# yunchang/ulysses/attn_layer.py UlyssesAttention.forward:
#   q = SeqAllToAll4D.apply(self.ulysses_pg, query, self.scatter_idx, self.gather_idx)  # (2, 1): seq -> heads
#   output = SeqAllToAll4D.apply(self.ulysses_pg, context_layer, self.gather_idx, self.scatter_idx)  # (1, 2): heads -> seq
# on batch-first [bs, seqlen, hc, hs] tensors.
#
# Corpus: no spec in corpus/ transcribes all_to_all_4D alone. It appears only
# inside corpus/yunchang/usp-ulysses-ring-{before,after}-50.sc, on a dp x rp x up
# mesh followed by a ring send_recv step (not this function alone). The CASES
# below are compared with the DeepSpeed batch-first Ulysses specs of the same
# placements (bf-seq2head-batchdim.sc, bf-head2seq-batchdim.sc): same dims,
# input and output, different steps; only the verdict can be compared.
import torch

from typing import Any, Tuple
from torch import Tensor
from torch.nn import Module

import torch.distributed as dist


# yunchang/comm/all_to_all.py L15-104 @ 56118e0d8fe377d43441226dd8bdd07135c92c22
def all_to_all_4D(
    input: torch.tensor, scatter_idx: int = 2, gather_idx: int = 1, group=None, use_sync: bool = False
) -> torch.tensor:
    """
    all-to-all for QKV

    Args:
        input (torch.tensor): a tensor sharded along dim scatter dim
        scatter_idx (int): default 1
        gather_idx (int): default 2
        group : torch process group
        use_sync (bool): whether to synchronize after all-to-all

    Returns:
        torch.tensor: resharded tensor (bs, seqlen/P, hc, hs)
    """
    assert (
        input.dim() == 4
    ), f"input must be 4D tensor, got {input.dim()} and shape {input.shape}"

    seq_world_size = dist.get_world_size(group)

    if scatter_idx == 2 and gather_idx == 1:
        # input (torch.tensor): a tensor sharded along dim 1 (bs, seqlen/P, hc, hs) output: (bs, seqlen, hc/P, hs)
        bs, shard_seqlen, hc, hs = input.shape
        seqlen = shard_seqlen * seq_world_size
        shard_hc = hc // seq_world_size

        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        # (bs, seqlen/P, hc, hs) -reshape-> (bs, seq_len/P, P, hc/P, hs) -transpose(0,2)-> (P, seq_len/P, bs, hc/P, hs)
        input_t = (
            input.reshape(bs, shard_seqlen, seq_world_size, shard_hc, hs)
            .transpose(0, 2)
            .contiguous()
        )

        output = torch.empty_like(input_t)
        # https://pytorch.org/docs/stable/distributed.html#torch.distributed.all_to_all_single
        # (P, seq_len/P, bs, hc/P, hs) scatter seqlen -all2all-> (P, seq_len/P, bs, hc/P, hs) scatter head

        if seq_world_size > 1:
            dist.all_to_all_single(output, input_t, group=group)
            if use_sync:
                torch.cuda.synchronize()
        else:
            output = input_t
        # if scattering the seq-dim, transpose the heads back to the original dimension
        output = output.reshape(seqlen, bs, shard_hc, hs)

        # (seq_len, bs, hc/P, hs) -reshape-> (bs, seq_len, hc/P, hs)
        output = output.transpose(0, 1).contiguous().reshape(bs, seqlen, shard_hc, hs)

        return output

    elif scatter_idx == 1 and gather_idx == 2:
        # input (torch.tensor): a tensor sharded along dim 1 (bs, seqlen, hc/P, hs) output: (bs, seqlen/P, hc, hs)
        bs, seqlen, shard_hc, hs = input.shape
        hc = shard_hc * seq_world_size
        shard_seqlen = seqlen // seq_world_size
        seq_world_size = dist.get_world_size(group)

        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        # (bs, seqlen, hc/P, hs) -reshape-> (bs, P, seq_len/P, hc/P, hs) -transpose(0, 3)-> (hc/P, P, seqlen/P, bs, hs) -transpose(0, 1) -> (P, hc/P, seqlen/P, bs, hs)
        input_t = (
            input.reshape(bs, seq_world_size, shard_seqlen, shard_hc, hs)
            .transpose(0, 3)
            .transpose(0, 1)
            .contiguous()
            .reshape(seq_world_size, shard_hc, shard_seqlen, bs, hs)
        )

        output = torch.empty_like(input_t)
        # https://pytorch.org/docs/stable/distributed.html#torch.distributed.all_to_all_single
        # (P, bs x hc/P, seqlen/P, hs) scatter seqlen -all2all-> (P, bs x seq_len/P, hc/P, hs) scatter head
        if seq_world_size > 1:
            dist.all_to_all_single(output, input_t, group=group)
            if use_sync:
                torch.cuda.synchronize()
        else:
            output = input_t

        # if scattering the seq-dim, transpose the heads back to the original dimension
        output = output.reshape(hc, shard_seqlen, bs, hs)

        # (hc, seqlen/N, bs, hs) -tranpose(0,2)-> (bs, seqlen/N, hc, hs)
        output = output.transpose(0, 2).contiguous().reshape(bs, shard_seqlen, hc, hs)

        return output
    else:
        raise RuntimeError("scatter_idx must be 1 or 2 and gather_idx must be 1 or 2")


# yunchang/comm/all_to_all.py L15-93 @ bdef8783dbafd5220767ec0dea3a68d8381166a2 (PR #50)
def all_to_all_4D_bdef8783(
    input: torch.tensor, scatter_idx: int = 2, gather_idx: int = 1, group=None
) -> torch.tensor:
    """
    all-to-all for QKV

    Args:
        input (torch.tensor): a tensor sharded along dim scatter dim
        scatter_idx (int): default 1
        gather_idx (int): default 2
        group : torch process group

    Returns:
        torch.tensor: resharded tensor (bs, seqlen/P, hc, hs)
    """
    assert (
        input.dim() == 4
    ), f"input must be 4D tensor, got {input.dim()} and shape {input.shape}"

    seq_world_size = dist.get_world_size(group)

    if scatter_idx == 2 and gather_idx == 1:
        # input (torch.tensor): a tensor sharded along dim 1 (bs, seqlen/P, hc, hs) output: (bs, seqlen, hc/P, hs)
        bs, shard_seqlen, hc, hs = input.shape
        seqlen = shard_seqlen * seq_world_size
        shard_hc = hc // seq_world_size

        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        # (bs, seqlen/P, hc, hs) -reshape-> (bs, seq_len/P, P, hc/P, hs) -transpose(0,2)-> (P, seq_len/P, bs, hc/P, hs)
        input_t = (
            input.reshape(bs, shard_seqlen, seq_world_size, shard_hc, hs)
            .transpose(0, 2)
            .contiguous()
        )

        output = torch.empty_like(input_t)
        # https://pytorch.org/docs/stable/distributed.html#torch.distributed.all_to_all_single
        # (P, seq_len/P, bs, hc/P, hs) scatter seqlen -all2all-> (P, seq_len/P, bs, hc/P, hs) scatter head
        dist.all_to_all_single(output, input_t, group=group)

        # if scattering the seq-dim, transpose the heads back to the original dimension
        output = output.reshape(seqlen, bs, shard_hc, hs)

        # (seq_len, bs, hc/P, hs) -reshape-> (bs, seq_len, hc/P, hs)
        output = output.transpose(0, 1).contiguous().reshape(bs, seqlen, shard_hc, hs)

        return output

    elif scatter_idx == 1 and gather_idx == 2:
        # input (torch.tensor): a tensor sharded along dim 1 (bs, seqlen, hc/P, hs) output: (bs, seqlen/P, hc, hs)
        bs, seqlen, shard_hc, hs = input.shape
        hc = shard_hc * seq_world_size
        shard_seqlen = seqlen // seq_world_size
        seq_world_size = dist.get_world_size(group)

        # transpose groups of heads with the seq-len parallel dimension, so that we can scatter them!
        # (bs, seqlen, hc/P, hs) -reshape-> (bs, P, seq_len/P, hc/P, hs) -transpose(0, 3)-> (hc/P, P, seqlen/P, bs, hs) -transpose(0, 1) -> (P, hc/P, seqlen/P, bs, hs)
        input_t = (
            input.reshape(bs, seq_world_size, shard_seqlen, shard_hc, hs)
            .transpose(0, 3)
            .transpose(0, 1)
            .contiguous()
            .reshape(seq_world_size, shard_hc, shard_seqlen, bs, hs)
        )

        output = torch.empty_like(input_t)
        # https://pytorch.org/docs/stable/distributed.html#torch.distributed.all_to_all_single
        # (P, bs x hc/P, seqlen/P, hs) scatter seqlen -all2all-> (P, bs x seq_len/P, hc/P, hs) scatter head
        dist.all_to_all_single(output, input_t, group=group)

        # if scattering the seq-dim, transpose the heads back to the original dimension
        output = output.reshape(hc, shard_seqlen, bs, hs)

        # (hc, seqlen/N, bs, hs) -tranpose(0,2)-> (bs, seqlen/N, hc, hs)
        output = output.transpose(0, 2).contiguous().reshape(bs, shard_seqlen, hc, hs)

        return output
    else:
        raise RuntimeError("scatter_idx must be 1 or 2 and gather_idx must be 1 or 2")


CASES = [
    # seq -> heads (scatter_idx=2, gather_idx=1), batch-first [bs, seqlen, hc, hs]
    dict(name="yunchang-a2a4d-seq2head",
         call="all_to_all_4D(X, 2, 1, GROUP)",
         dims="b,s,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/bf-seq2head-batchdim.sc", require=[]),
    # heads -> seq (scatter_idx=1, gather_idx=2)
    dict(name="yunchang-a2a4d-head2seq",
         call="all_to_all_4D(X, 1, 2, GROUP)",
         dims="b,s,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/bf-head2seq-batchdim.sc", require=[]),
    dict(name="yunchang-a2a4d-bdef8783-seq2head",
         call="all_to_all_4D_bdef8783(X, 2, 1, GROUP)",
         dims="b,s,h,d", input="shard s", output="shard h",
         corpus="corpus/deepspeed/bf-seq2head-batchdim.sc", require=[]),
    dict(name="yunchang-a2a4d-bdef8783-head2seq",
         call="all_to_all_4D_bdef8783(X, 1, 2, GROUP)",
         dims="b,s,h,d", input="shard h", output="shard s",
         corpus="corpus/deepspeed/bf-head2seq-batchdim.sc", require=[]),
]

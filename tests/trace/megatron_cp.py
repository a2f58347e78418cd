# Megatron-LM context parallelism: get_batch_on_this_cp_rank, which cuts the
# sequence of every batch tensor into 2*cp chunks and keeps chunks cp_rank
# and 2*cp-1-cp_rank (the load-balanced zigzag layout for causal attention),
# transcribed from the original source.
#
#   NVIDIA/Megatron-LM @ core_v0.14.0 (23e00ed0963c35382dfe8a5a94fb3cda4d21e133),
#   megatron/core/utils.py L1803-1833, get_batch_on_this_cp_rank: copied line
#   for line below (get_batch_on_this_cp_rank).
#   (The same code is in megatron/training/utils.py L232-262 at core_v0.9.0,
#   1afee592e85ac7994887eb5f4ef3998f76384333, with cp_size from get_args() and
#   the index built by torch.tensor([...]).cuda().)
#
# parallel_state: megatron/core/parallel_state.py @ 23e00ed0, L1329-1333
# get_context_parallel_group, L1635-1640 get_context_parallel_world_size,
# L1643-1648 get_context_parallel_rank, copied into the class below; its
# _CONTEXT_PARALLEL_GROUP is the tracer's GROUP, set by the caller
# (cp_get_batch), which hands the function a batch of one tensor (tokens,
# labels, loss_mask or position_ids [b, s], seq_dim 1; or attention_mask
# [b, 1, s, s], seq_dim 2) and returns it from the result.
#
# The original selects the two chunks with val.index_select(seq_dim, index),
# index a torch.int64 tensor filled with cp_rank and 2*cp_size-cp_rank-1: the
# tracer refuses index_select (an index tensor has no step). The corpus
# specs (corpus/megatron/cp-get-batch-zigzag.sc, -attention-mask.sc) write it
# as `take SEQ_DIM 2*P [rank, 2*P-rank-1]` on the [.., 2*cp, s/(2*cp), ..]
# view, i.e. torch.chunk of that view into its 2*cp entries and torch.cat of
# two of them; get_batch_on_this_cp_rank_chunk_cat is the original with that
# one statement (L1826-1829) written so, everything else unchanged. It is
# NOT Megatron's code.
from typing import Any, Dict

import torch


class parallel_state:
    """megatron/core/parallel_state.py @ 23e00ed0, the three functions used."""
    _CONTEXT_PARALLEL_GROUP = None

    @staticmethod
    def get_context_parallel_group(check_initialized=True):
        """Get the context-parallel group the caller rank belongs to."""
        if check_initialized:
            assert parallel_state._CONTEXT_PARALLEL_GROUP is not None, "context parallel group is not initialized"
        return parallel_state._CONTEXT_PARALLEL_GROUP

    @staticmethod
    def get_context_parallel_world_size():
        """Return world size for the context parallel group."""
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return parallel_state.get_context_parallel_group().size()
        else:
            return 0

    @staticmethod
    def get_context_parallel_rank():
        """Return caller's rank in the context-parallel group."""
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return parallel_state.get_context_parallel_group().rank()
        else:
            return 0


# megatron/core/utils.py L1803-1833 @ 23e00ed0963c35382dfe8a5a94fb3cda4d21e133
def get_batch_on_this_cp_rank(batch: Dict[str, Any]):
    """Slice batch input along sequence dimension into multiple chunks,
    which are parallelized across GPUs in a context parallel group.
    """

    # With causal masking, each token only attends to its prior tokens. Simply split
    # sequence into CP chunks can result in severe load imbalance. That's to say, chunks
    # at the end of sequence have bigger workload than others. To address this issue,
    # we split sequence into 2*CP ranks. Assuming CP=2, we then get 4 chunks, chunk_0
    # and chunk_3 are assigned to GPU0, chunk_1 and chunk_2 are assigned to GPU1, so
    # that we can get balanced workload among GPUs in a context parallel group.
    cp_size = parallel_state.get_context_parallel_world_size()
    if cp_size > 1:
        cp_rank = parallel_state.get_context_parallel_rank()
        for key, val in batch.items():
            if val is not None:
                seq_dim = 1 if key != "attention_mask" else 2
                val = val.view(
                    *val.shape[0:seq_dim],
                    2 * cp_size,
                    val.shape[seq_dim] // (2 * cp_size),
                    *val.shape[(seq_dim + 1) :],
                )
                index = torch.zeros(2, dtype=torch.int64, device=val.device)
                index[0].fill_(cp_rank)
                index[1].fill_(2 * cp_size - cp_rank - 1)
                val = val.index_select(seq_dim, index)
                val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2) :])
                batch[key] = val

    return batch


# NOT Megatron's code: get_batch_on_this_cp_rank with L1826-1829 (the index
# tensor and index_select) written as torch.chunk of the view into its 2*cp
# entries and torch.cat of entries cp_rank and 2*cp_size-cp_rank-1, as the
# corpus specs write them (`take SEQ_DIM 2*P [rank, 2*P-rank-1]`).
def get_batch_on_this_cp_rank_chunk_cat(batch: Dict[str, Any]):
    cp_size = parallel_state.get_context_parallel_world_size()
    if cp_size > 1:
        cp_rank = parallel_state.get_context_parallel_rank()
        for key, val in batch.items():
            if val is not None:
                seq_dim = 1 if key != "attention_mask" else 2
                val = val.view(
                    *val.shape[0:seq_dim],
                    2 * cp_size,
                    val.shape[seq_dim] // (2 * cp_size),
                    *val.shape[(seq_dim + 1) :],
                )
                val_chunks = val.chunk(2 * cp_size, dim=seq_dim)
                val = torch.cat([val_chunks[cp_rank], val_chunks[2 * cp_size - cp_rank - 1]], dim=seq_dim)
                val = val.view(*val.shape[0:seq_dim], -1, *val.shape[(seq_dim + 2) :])
                batch[key] = val

    return batch


# The caller: the CP group is the tracer's GROUP; a batch of one tensor.
def cp_get_batch(get_batch, key, val, cp_group):
    parallel_state._CONTEXT_PARALLEL_GROUP = cp_group
    batch = {key: val}
    batch = get_batch(batch)
    return batch[key]


# Status with the tracer at 2205505: index_select is refused (exit 2); the
# chunk/cat form traces at one shape only (the zigzag size search, see
# ring_attention.py), so its view sizes are constants; with the zigzag
# message read correctly the tokens case gives the corpus steps and passes.
# The attention-mask case's list uses the dim `k`, which the spec language
# binds in `[E for k]` (the written spec does not parse).
CASES = [
    # the original (index_select): refused by the tracer
    dict(name="cp-get-batch-zigzag-index-select",
         call='cp_get_batch(get_batch_on_this_cp_rank, "tokens", X, GROUP)',
         dims="b,s", input="replicate", output="shard s zigzag",
         corpus="corpus/megatron/cp-get-batch-zigzag.sc", require=[]),
    dict(name="cp-get-batch-zigzag",
         call='cp_get_batch(get_batch_on_this_cp_rank_chunk_cat, "tokens", X, GROUP)',
         dims="b,s", input="replicate", output="shard s zigzag",
         corpus="corpus/megatron/cp-get-batch-zigzag.sc", require=[]),
    dict(name="cp-get-batch-zigzag-attention-mask",
         call='cp_get_batch(get_batch_on_this_cp_rank_chunk_cat, "attention_mask", X, GROUP)',
         dims="b,o,q,k", input="replicate", output="shard q zigzag",
         corpus="corpus/megatron/cp-get-batch-zigzag-attention-mask.sc", require=[]),
]

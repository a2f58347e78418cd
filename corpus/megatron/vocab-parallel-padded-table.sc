# Megatron's vocab-parallel embedding table: the vocabulary padded with
# dummy rows to a multiple of make_vocab_size_divisible_by * tp (taken here
# as tp alone, the multiple 1), each rank keeping its range of the padded
# vocabulary. NVIDIA/Megatron-LM tag core_v0.14.0 =
# 23e00ed0963c35382dfe8a5a94fb3cda4d21e133:
#   megatron/training/tokenizer/tokenizer.py L115-128, _vocab_size_with_padding:
#     multiple = args.make_vocab_size_divisible_by * args.tensor_model_parallel_size
#     after = int(math.ceil(after / multiple) * multiple)
#   megatron/core/tensor_parallel/utils.py L97-121, VocabUtility:
#     per_partition_vocab_size = divide(global_vocab_size, world_size)
#     index_f = rank * per_partition_vocab_size
#     index_l = index_f + per_partition_vocab_size
#   megatron/core/tensor_parallel/layers.py L223-228 (VocabParallelEmbedding):
#     (self.vocab_start_index, self.vocab_end_index) = (
#         VocabUtility.vocab_range_from_global_vocab_size(
#             self.num_embeddings, get_pg_rank(self.tp_group), get_pg_size(self.tp_group)))
# The reference is the padded table (its padding rows are expected where
# they land); the steps pad the full table and take the rank's range.
pipeline megatron-vocab-parallel-padded-table
dims v h
input replicate                # the [V, h] table
output shard v                 # each rank: [V'/tp, h] of the padded [V', h]
expect pass
reference
pad 0 0 cdiv(v,P)*P-v          # _vocab_size_with_padding
end
pad 0 0 cdiv(v,P)*P-v
narrow 0 rank*(size(0)//P) size(0)//P   # vocab_range_from_global_vocab_size

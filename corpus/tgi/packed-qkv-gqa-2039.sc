# text-generation-inference's Weights.get_weights_col_packed loading a packed
# QKV weight (rows [q heads | k heads | v heads], each head e rows) column-
# parallel, as PR #2039 ("Add Phi-3 medium support") fixes it: the blocks
# are proportional to [num_heads, num_key_value_heads, num_key_value_heads]
# and every rank takes its 1/P of each block. The same X and reference as
# packed-qkv-gqa-before-2039.sc.
# huggingface/text-generation-inference @ 85dfc39222798b75559c891789283de23c679ca5
# (PR #2039; parent 9b3674d9038a62c42534e1b3ee2d56257dd214ff),
# server/text_generation_server/utils/weights.py L147-156, L161, L224-245,
# L614-639:
#   def get_weights_col_packed_qkv(self, prefix, quantize, num_heads, num_key_value_heads):
#       return self.get_weights_col_packed(
#           prefix, quantize, [num_heads, num_key_value_heads, num_key_value_heads])
#   ...
#       total_size = slice_.get_shape()[0]
#       block_sizes = _blocks_to_block_sizes(total_size=total_size, blocks=block_sizes)
#       block_offset = 0
#       for block_size in block_sizes:
#           assert (block_size % world_size == 0), ...
#           shard_block_size = block_size // world_size
#           start = rank * shard_block_size
#           stop = (rank + 1) * shard_block_size
#           tensor = slice_[block_offset + start : block_offset + stop]
#           tensors.append(tensor)
#           block_offset += block_size
#       weight = torch.cat(tensors, dim=0)
#   _blocks_to_block_sizes (list case):
#       total_blocks = sum(blocks)
#       assert (total_size % total_blocks == 0), ...
#       part_size = total_size // total_blocks
#       return [part_size * block for block in blocks]
# flash_llama_modeling.py L59-67 (phi3) now passes num_heads=
# config.num_attention_heads, num_key_value_heads=config.num_key_value_heads,
# and FlashLlamaAttention L114-118 adds the `num_key_value_heads %
# num_shards` ValueError (the require below). X is [j, kv, e] flattened to
# rows (num_heads = (j-2)*kv, kv heads, head_size e; hidden columns left
# out); the quantized branches and .to(device/dtype) are left out.
# Expected PASS. shardcheck: 500 cases per property pass; --exhaustive
# --world 1..3 --max-dim 6: 576 cases, every one passes.
# Confirmed on gloo (torch 2.11.0 and 1.13.0): a script
# (verbatim method text of this commit, _blocks_to_block_sizes included),
# worlds 2, 3, 4, 60 drawn cases each: "after: 180 cases, 0 differ"; the
# replays P=1 j=4 kv=1 e=1 and P=2 j=6 kv=2 e=1 give the reference rows.
pipeline tgi-packed-qkv-gqa-2039
dims j kv e
input replicate                 # every rank reads the whole checkpoint tensor
output shard kv as (j kv e)     # rank r: [q heads of r | k heads of r | v heads of r]
require j >= 3 and kv % P == 0
sizes j=3..8 kv=P..4*P e=1..4
expect pass

reference
q, k, v = split X [size(0)-2, 1, 1] dim=0
q = reshape q [P, size(0), size(1)//P, size(2)]
q = permute q 1 0 2 3
q = reshape q [size(0), -1, size(3)]
Y = cat q k v dim=0
end

tensor x = input
w = flatten x 0 2                                    # slice_ rows, total_size = j*kv*e
assert (j*kv*e) % (j*kv) == 0                        # total_size % total_blocks, part_size = e
assert ((j-2)*kv*e) % P == 0                         # block_size % world_size (q)
assert (kv*e) % P == 0                               # block_size % world_size (k, v)
a = narrow w 0 rank*((j-2)*kv*e//P) (j-2)*kv*e//P                    # q block, offset 0
b = narrow w 0 (j-2)*kv*e+rank*(kv*e//P) kv*e//P                     # k block, offset num_heads*e
c = narrow w 0 (j-1)*kv*e+rank*(kv*e//P) kv*e//P                     # v block, offset (num_heads+kv)*e
y = cat a b c dim=0                                  # torch.cat(tensors, dim=0)

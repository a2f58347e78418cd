# text-generation-inference's Weights.get_weights_col_packed loading a packed
# QKV weight (rows [q heads | k heads | v heads], each head e rows) column-
# parallel, before PR #2039: the rows are cut into three EQUAL blocks and
# every rank takes its 1/P of each, as if num_heads == num_key_value_heads.
# A GQA model loaded through this path (Phi-3-medium: 40 q / 10 kv heads;
# flash_llama_modeling.py load_attention's phi3 branch, L59-64, calls
# TensorParallelColumnLinear.load_qkv -> get_weights_col_packed_qkv(prefix,
# quantize) -> get_weights_col_packed(prefix, quantize, 3)) gets the wrong
# rows, or trips the `% 3` assert.
# huggingface/text-generation-inference @ 9b3674d9038a62c42534e1b3ee2d56257dd214ff
# (parent of PR #2039's 85dfc39222798b75559c891789283de23c679ca5),
# server/text_generation_server/utils/weights.py L151-152, L157, L212-229:
#   def get_weights_col_packed_qkv(self, prefix: str, quantize: str):
#       return self.get_weights_col_packed(prefix, quantize, 3)
#   ...
#       slice_ = self._get_slice(f"{prefix}.weight")
#       total_size = slice_.get_shape()[0]
#       assert total_size % blocks == 0, f"Prepacked is not divisible by {blocks}"
#       single_size = total_size // blocks
#       assert (single_size % world_size == 0), ...
#       block_size = single_size // world_size
#       start = rank * block_size
#       stop = (rank + 1) * block_size
#       for i in range(blocks):
#           tensor = slice_[start + i * single_size : stop + i * single_size]
#       weight = torch.cat(tensors, dim=0)
# X is the checkpoint's qkv_proj.weight rows as [j, kv, e] (j = g+2, g q
# heads per kv head: num_heads = (j-2)*kv, num_key_value_heads = kv, e =
# head_size), flattened to its (j*kv*e) rows; the hidden columns are left
# out (every slice takes whole rows). Left out: the quantized branches
# (gptq/awq/marlin, _get_qweight), .to(device/dtype). The reference is what
# FlashLlamaAttention needs on rank r: its num_heads/P q heads, then its
# num_kv/P k heads, then its v heads; `require kv % P == 0` is the model's
# own check (heads divisible by the shards).
# Expected FAIL. Minimal case (shardcheck --cases 500, shrunk): world=1
# j=4 kv=1 e=1 (num_heads 2, kv 1: 6 rows), `assert (j*kv*e) % 3 == 0`
# fails ("Prepacked is not divisible by 3"). A silently wrong case:
# `shardcheck eval FILE --world 2 --sizes j=6,kv=2,e=1` (num_heads 8, kv 2):
# rank 0 holds rows [0,1,4,5,8,9], needs [0,1,2,3,8,10]; 6 wrong elements.
# `--exhaustive --world 1..3 --max-dim 3` passes (j <= 3 is MHA, j = 3,
# where equal thirds are right); with --max-dim 6 it fails as above.
# Confirmed on gloo (torch 2.11.0 and 1.13.0): a script
# execs the verbatim get_weights_col_packed_qkv/get_weights_col_packed text
# of both commits on a stub Weights (a tensor behind get_shape()/slicing for
# the safetensors slice), worlds 2, 3, 4, 60 drawn cases each (kv a multiple
# of P, hidden 1..2 columns): "before: 180 cases, 151 differ; after: 180
# cases, 0 differ" (79 silently wrong rows, 72 AssertionError); replay of
# P=1 j=4 kv=1 e=1: AssertionError "Prepacked is not divisible by 3";
# replay of P=2 j=6 kv=2 e=1: wrong rows; smallest silently wrong drawn
# case P=2 j=6 kv=2 e=1 (hidden=2).
pipeline tgi-packed-qkv-gqa-before-2039
dims j kv e
input replicate                 # every rank reads the whole checkpoint tensor
output shard kv as (j kv e)     # rank r: [q heads of r | k heads of r | v heads of r]
require j >= 3 and kv % P == 0
sizes j=3..8 kv=P..4*P e=1..4
expect fail

reference
q, k, v = split X [size(0)-2, 1, 1] dim=0
q = reshape q [P, size(0), size(1)//P, size(2)]
q = permute q 1 0 2 3
q = reshape q [size(0), -1, size(3)]
Y = cat q k v dim=0
end

tensor x = input
w = flatten x 0 2                                    # slice_ rows, total_size = j*kv*e
assert (j*kv*e) % 3 == 0                             # assert total_size % blocks == 0
assert ((j*kv*e)//3) % P == 0                        # assert single_size % world_size == 0
a = narrow w 0 rank*((j*kv*e)//3//P) (j*kv*e)//3//P                  # i = 0
b = narrow w 0 (j*kv*e)//3+rank*((j*kv*e)//3//P) (j*kv*e)//3//P      # i = 1
c = narrow w 0 2*((j*kv*e)//3)+rank*((j*kv*e)//3//P) (j*kv*e)//3//P  # i = 2
y = cat a b c dim=0                                  # torch.cat(tensors, dim=0)

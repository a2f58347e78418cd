# Hugging Face transformers' gradient accumulation before the fix: each
# micro-batch's loss is the mean over its own label tokens, and the
# accelerator divides each by the number of micro-batches, so the
# accumulated gradient is that of the mean of the micro-batch means, not of
# one mean over all the step's tokens; they differ whenever the
# micro-batches hold different numbers of label tokens.
# huggingface/transformers v4.45.2 (wheel sha256 c551b336...),
# models/llama/modeling_llama.py L1224-1229:
#   loss_fct = CrossEntropyLoss()          # reduction='mean', ignore_index=-100
#   loss = loss_fct(shift_logits, shift_labels)
# trainer.py L3485 `loss = self.compute_loss(model, inputs)`, L3518
# `self.accelerator.backward(loss, **kwargs)`; accelerate v1.0.1
# accelerator.py L2236 `loss = loss / self.gradient_accumulation_steps`.
# Reported and fixed by huggingface/transformers PRs #34191, #34198, #34283
# (gradient-accumulation-v4.46.0.sc).
pipeline transformers-gradient-accumulation-v4.45.2
dims g n v
microbatches N[g] n 1..8           # g = gradient_accumulation_steps; micro-batch k holds N(k) label tokens
tensor logits [n, v] replicate     # the step's label tokens' logits, micro-batch after micro-batch
tensor labels [n] replicate index v
output loss [] replicate           # what the accumulated gradient is the gradient of
sizes g=1..4 v=1..8
expect fail

reference
m = max logits dim=-1 keepdim
z = sub logits m
e = exp z
s = sum e dim=-1
s = log s
p = pick z labels
c = sub s p                        # per-token cross-entropy
loss = sum c dim=0
loss = scale loss 1/n              # one mean over all the step's tokens

program
microbatch k
  m = max logits dim=-1 keepdim
  z = sub logits m
  e = exp z
  s = sum e dim=-1
  s = log s
  p = pick z labels
  c = sub s p
  a = mean c dim=0                 # CrossEntropyLoss(): the mean over this micro-batch's tokens
  a = scale a 1/g                  # accelerator.backward: / gradient_accumulation_steps
  loss += a                        # .grad accumulates over the micro-batches
end

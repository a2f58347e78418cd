# Hugging Face transformers' gradient accumulation as v4.46.0 fixes it:
# the Trainer counts the label tokens of all the step's micro-batches
# (num_items_in_batch), each micro-batch's loss is its sum divided by that
# count, and training_step multiplies by the number of micro-batches
# before the accelerator divides by it. The same micro-batches as
# gradient-accumulation-v4.45.2.sc.
# huggingface/transformers v4.46.0 (wheel sha256 e161268a...),
# loss/loss_utils.py L24-29, fixed_cross_entropy:
#   reduction = "sum" if num_items_in_batch is not None else "mean"
#   loss = nn.functional.cross_entropy(source, target, ignore_index=ignore_index, reduction=reduction)
#   if reduction == "sum":
#       loss = loss / num_items_in_batch
# trainer.py L5044-5046 get_batch_samples (num_items_in_batch = the
# micro-batches' labels[..., 1:].ne(-100).sum()), L3605-3606
#   loss *= self.args.gradient_accumulation_steps
#   self.accelerator.backward(loss, **kwargs)
pipeline transformers-gradient-accumulation-v4.46.0
dims g n v
microbatches N[g] n 1..8           # g = gradient_accumulation_steps; micro-batch k holds N(k) label tokens
tensor logits [n, v] replicate     # the step's label tokens' logits, micro-batch after micro-batch
tensor labels [n] replicate index v
output loss [] replicate           # what the accumulated gradient is the gradient of
sizes g=1..4 v=1..8
expect pass

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
  a = sum c dim=0                  # fixed_cross_entropy: reduction="sum"
  a = scale a 1/n                  # / num_items_in_batch (all the step's micro-batches' tokens)
  a = scale a g                    # loss *= gradient_accumulation_steps
  a = scale a 1/g                  # accelerator.backward: / gradient_accumulation_steps
  loss += a
end

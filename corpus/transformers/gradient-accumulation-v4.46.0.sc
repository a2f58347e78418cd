# Hugging Face transformers' gradient accumulation as v4.46.0 fixes it:
# the Trainer counts the label tokens of all the step's micro-batches
# (num_items_in_batch), each micro-batch's loss is its sum divided by that
# count, and training_step multiplies by the number of micro-batches
# before the accelerator divides by it. Two micro-batches, as in
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
dims n1 n2 v
tensor l1 [n1, v] replicate        # micro-batch 1: logits of its n1 label tokens
tensor t1 [n1] replicate index v   # and their labels
tensor l2 [n2, v] replicate        # micro-batch 2, n2 label tokens
tensor t2 [n2] replicate index v
output loss [] replicate           # what the accumulated gradient is the gradient of
sizes n1=1..8 n2=1..8 v=1..8
expect pass

reference
m1 = max l1 dim=-1 keepdim
z1 = sub l1 m1
e1 = exp z1
s1 = sum e1 dim=-1
s1 = log s1
p1 = pick z1 t1
c1 = sub s1 p1                # per-token cross-entropy
a1 = sum c1 dim=0
m2 = max l2 dim=-1 keepdim
z2 = sub l2 m2
e2 = exp z2
s2 = sum e2 dim=-1
s2 = log s2
p2 = pick z2 t2
c2 = sub s2 p2                # per-token cross-entropy
a2 = sum c2 dim=0
loss = add a1 a2
loss = scale loss 1/(n1+n2)     # one mean over all the step's tokens

program
m1 = max l1 dim=-1 keepdim
z1 = sub l1 m1
e1 = exp z1
s1 = sum e1 dim=-1
s1 = log s1
p1 = pick z1 t1
c1 = sub s1 p1                # per-token cross-entropy
a1 = sum c1 dim=0                 # fixed_cross_entropy: reduction="sum"
a1 = scale a1 1/(n1+n2)           # / num_items_in_batch (both micro-batches' tokens)
a1 = scale a1 2                   # loss *= gradient_accumulation_steps
a1 = scale a1 1/2                 # accelerator.backward: / gradient_accumulation_steps
m2 = max l2 dim=-1 keepdim
z2 = sub l2 m2
e2 = exp z2
s2 = sum e2 dim=-1
s2 = log s2
p2 = pick z2 t2
c2 = sub s2 p2                # per-token cross-entropy
a2 = sum c2 dim=0
a2 = scale a2 1/(n1+n2)
a2 = scale a2 2
a2 = scale a2 1/2
loss = add a1 a2

# Hugging Face transformers' gradient accumulation before the fix: each
# micro-batch's loss is the mean over its own label tokens, and the
# accelerator divides each by the number of micro-batches, so the
# accumulated gradient is that of the mean of the micro-batch means, not of
# one mean over all the step's tokens; they differ whenever the
# micro-batches hold different numbers of label tokens. Two micro-batches
# (n1 and n2 tokens, drawn and shrunk independently).
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
dims n1 n2 v
tensor l1 [n1, v] replicate        # micro-batch 1: logits of its n1 label tokens
tensor t1 [n1] replicate index v   # and their labels
tensor l2 [n2, v] replicate        # micro-batch 2, n2 label tokens
tensor t2 [n2] replicate index v
output loss [] replicate           # what the accumulated gradient is the gradient of
sizes n1=1..8 n2=1..8 v=1..8
expect fail

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
a1 = mean c1 dim=0                # CrossEntropyLoss(): mean over this micro-batch
a1 = scale a1 1/2                 # accelerator.backward: loss / gradient_accumulation_steps
m2 = max l2 dim=-1 keepdim
z2 = sub l2 m2
e2 = exp z2
s2 = sum e2 dim=-1
s2 = log s2
p2 = pick z2 t2
c2 = sub s2 p2                # per-token cross-entropy
a2 = mean c2 dim=0
a2 = scale a2 1/2
loss = add a1 a2                  # gradients accumulate over the two backward passes

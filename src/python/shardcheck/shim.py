"""A communicator binding's calls, written with torch.distributed.

Code that calls an NCCL binding of its own (vLLM's PyNcclCommunicator, a
custom all-reduce, a C++ extension) cannot be traced as it is: its calls
go to a library the trace does not see. Give that code a `Communicator`
in the binding's place (its methods take NCCL's arguments: output buffer,
input buffer, counts from their sizes) and `shardcheck trace` sees every
call as the torch.distributed collective it stands for:

    comm = CudaCommunicator(GROUP)                 # the code under test
    comm.pynccl_comm = shardcheck.shim.Communicator(GROUP)
    comm.reduce_scatter(X, 1)

Outside a trace the same object runs the collectives on the group's real
backend, so a function can be traced and run with one stand-in.

Each method does what NCCL's call of that name does with the buffers'
memory (a flat run of elements, rank by rank in group order):
  all_reduce(in, out=None, op)  out = the sum (or op) of every rank's in; returns out
  all_gather(out, in)           out = every rank's in, one after another
  reduce_scatter(out, in, op)   out = this rank's out.numel() elements of the reduced in
  broadcast(t, src)             t = group rank src's t
  send(t, dst) / recv(t, src)   group ranks; a send and a receive pair up as
                                torch.distributed's do
Buffers must be contiguous (NCCL reads raw memory; a strided view is
refused rather than read in an order the binding would not use)."""
import contextlib

import torch.distributed as dist


class Communicator:
    """A stand-in for a communicator bound to `group` (None: the world),
    with PyNcclCommunicator's methods and attributes."""

    def __init__(self, group=None, device=None):
        self.group = group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        self.device = device
        self.available = True
        self.disabled = False
        self.stream = None

    def _global(self, r):
        """A group rank as a world rank (what torch.distributed's src/dst take)."""
        if self.group is None or self.group is getattr(dist.GroupMember, "WORLD", None):
            return r
        return dist.get_process_group_ranks(self.group)[r]

    @staticmethod
    def _contiguous(*ts):
        for t in ts:
            if not t.is_contiguous():
                raise RuntimeError("shardcheck.shim: NCCL reads a buffer's memory as it lies; "
                                   "pass a contiguous tensor")

    def all_reduce(self, in_tensor, out_tensor=None, op=dist.ReduceOp.SUM, stream=None):
        self._contiguous(in_tensor)
        if out_tensor is None:
            out_tensor = in_tensor.clone()
        else:
            out_tensor.copy_(in_tensor)
        dist.all_reduce(out_tensor, op=op, group=self.group)
        return out_tensor

    def all_gather(self, output_tensor, input_tensor, stream=None):
        self._contiguous(output_tensor, input_tensor)
        dist.all_gather_into_tensor(output_tensor, input_tensor, group=self.group)

    def reduce_scatter(self, output_tensor, input_tensor, op=dist.ReduceOp.SUM, stream=None):
        self._contiguous(output_tensor, input_tensor)
        dist.reduce_scatter_tensor(output_tensor, input_tensor, op=op, group=self.group)

    def broadcast(self, tensor, src, stream=None):
        self._contiguous(tensor)
        dist.broadcast(tensor, src=self._global(src), group=self.group)

    def send(self, tensor, dst, stream=None):
        self._contiguous(tensor)
        dist.send(tensor, self._global(dst), group=self.group)

    def recv(self, tensor, src, stream=None):
        self._contiguous(tensor)
        dist.recv(tensor, self._global(src), group=self.group)

    def group_start(self):
        """NCCL's ncclGroupStart: the calls between it and group_end run as
        they come (the stand-in has nothing to batch)."""

    def group_end(self):
        """NCCL's ncclGroupEnd."""

    @contextlib.contextmanager
    def change_state(self, enable=None, stream=None):
        """PyNcclCommunicator.change_state: the stand-in is always enabled."""
        yield

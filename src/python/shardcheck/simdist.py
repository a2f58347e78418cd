"""A simulated process group: torch.distributed as one rank of it sees it.

While a trace runs, torch.distributed's collectives, its world-size and
rank queries and new_group are replaced (in the module, so that
`dist.all_to_all_single` and `from torch.distributed import ...` done
inside the trace both see them). A collective on a tracked tensor records
its step; its output buffer gets the result's shape (the values are not
computed: the spec's interpreter computes them). Nothing here talks to
another process.
"""
import contextlib

import torch
import torch.distributed as dist

from .record import GatherPiece, Piece, Step, TraceError, step_failed, unsupported, user_line


class Listed(str):
    """The group= of a step on a group of listed ranks: the same marker in
    every run (it is part of the step's signature), the ranks as the code
    listed them apart (each solved over the runs as an expression of P)."""

    def __new__(cls, ranks, world=False):
        text = super().__new__(cls, "[listed]")
        text.ranks, text.world = list(ranks), world
        return text


class Group:
    """One process group as this rank sees it: its members (world ranks,
    in group order) and the mesh dims it spans (None: the whole world);
    listed: the ranks of new_group(ranks) as the code gave them, for a
    group that is no mesh dim's."""

    def __init__(self, members, rank, dims=None, listed=None):
        self.members, self.global_rank, self.dims = list(members), rank, dims
        self.listed = listed

    def size(self):
        return len(self.members)

    def rank(self):
        return self.members.index(self.global_rank)

    def text(self):
        if self.listed is not None:
            return Listed(self.listed, world=self.dims is None and self.members == sorted(self.listed) and
                          self.members == list(range(len(self.members))))
        return None if self.dims is None else ",".join(self.dims)

    def __repr__(self):
        return f"<simulated group {self.text() or 'world'} {self.members}>"


# what dist.new_group returns on a rank outside the group (torch:
# GroupMember.NON_GROUP_MEMBER); a collective on it is refused by group()
NOT_MEMBER = object()


class Groups:
    """GROUPS in --call: GROUPS.tp is this rank's group along mesh dim tp."""

    def __init__(self, groups, mesh=None):
        self.__dict__.update(groups)
        self._mesh = mesh   # MESH in --call

    def __getitem__(self, k):
        return self.__dict__[k]


class Mesh:
    """A DeviceMesh as one rank of the trace sees it: MESH in --call, and
    what init_device_mesh returns while a trace runs. Its dims are --mesh's
    (without --mesh: one unnamed dim over the world); each dim's group is
    the trace's group along it, so a collective on mesh.get_group("tp"),
    on mesh["tp"] or on (mesh, "tp") runs within the tp groups and its step
    says group=tp."""

    device_type = "cpu"

    def __init__(self, names, shape, coords, groups, rank):
        self.mesh_dim_names = tuple(names) if names and names[0] is not None else None
        self._names, self.shape, self._coords = list(names), tuple(shape), list(coords)
        self._groups, self._rank = groups, rank   # groups: one per dim, in dim order

    @property
    def ndim(self):
        return len(self.shape)

    def _dim(self, mesh_dim):
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError(f"a DeviceMesh of {self.ndim} dims: name the mesh dim")
            return 0
        if isinstance(mesh_dim, str):
            if mesh_dim not in self._names:
                raise KeyError(f"mesh dim '{mesh_dim}' is not one of {self.mesh_dim_names}")
            return self._names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"mesh dim {mesh_dim} of a DeviceMesh of {self.ndim} dims")
        return mesh_dim % self.ndim

    def size(self, mesh_dim=None):
        if mesh_dim is None:
            n = 1
            for v in self.shape:
                n *= v
            return n
        return self.shape[self._dim(mesh_dim)]

    def get_group(self, mesh_dim=None):
        return self._groups[self._dim(mesh_dim)]

    def get_all_groups(self):
        return list(self._groups)

    def get_local_rank(self, mesh_dim=None):
        return self._coords[self._dim(mesh_dim)]

    def get_coordinate(self):
        return list(self._coords)

    def get_rank(self):
        return self._rank

    def __getitem__(self, names):
        names = (names,) if isinstance(names, str) else tuple(names)
        ks = [self._dim(n) for n in names]
        return Mesh([self._names[k] for k in ks], [self.shape[k] for k in ks], [self._coords[k] for k in ks],
                    [self._groups[k] for k in ks], self._rank)

    def __repr__(self):
        return f"<simulated DeviceMesh {self.shape} {self.mesh_dim_names}>"


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, **kw):
    """torch.distributed.device_mesh.init_device_mesh while a trace runs:
    the trace's mesh, when the shape asked for is its shape."""
    if not _current:
        raise TraceError("usage", user_line()[0], "init_device_mesh is called outside the traced call",
                         "make the mesh inside the function --call runs, or pass MESH")
    m = _current[-1].mesh
    names = list(mesh_dim_names) if mesh_dim_names else None
    if tuple(mesh_shape) != m.shape or (names and m.mesh_dim_names and tuple(names) != m.mesh_dim_names):
        raise TraceError("unsupported", user_line()[0],
                         f"init_device_mesh({tuple(mesh_shape)}, mesh_dim_names={names}) is not the traced mesh "
                         f"{m.shape} {m.mesh_dim_names}",
                         "trace with --mesh giving the same dims (names and sizes), or pass MESH")
    return m


class Work:
    def wait(self, *a, **k):
        return True

    def is_completed(self):
        return True


_OPS = {"SUM": "sum", "MAX": "max", "MIN": "min", "PRODUCT": "prod"}


def _op(op):
    for name, text in _OPS.items():
        if op == getattr(dist.ReduceOp, name):
            return text
    raise unsupported("reduce op", f"reduction {op} has no step: the language reduces by sum, max, min, prod")


class SimDist:
    """The replacements for one trace (one rank of one world)."""

    def __init__(self, rec, world, mesh_groups, partitions, mesh=None):
        self.rec = rec
        self.mesh = mesh                    # MESH: the Mesh this rank sees
        self.world = world                  # the whole world's Group
        self.mesh_groups = mesh_groups      # frozenset of world ranks -> Group (mesh dims' groups)
        self.partitions = partitions
        self.pending = None                 # a send or receive waiting for its other half

    # groups --------------------------------------------------------------
    def group(self, g):
        if g is None or g is getattr(dist.GroupMember, "WORLD", None):
            return self.world
        if isinstance(g, Group):
            return g
        raise TraceError("unsupported", user_line()[0], f"{g!r} is not a process group of the trace",
                         "pass GROUP (or GROUPS.<mesh dim>) from --call, or one from dist.new_group")

    def new_group(self, ranks=None, *a, **k):
        if ranks is None:
            return self.world
        ranks = [int(r) for r in ranks]
        if ranks == self.world.members:
            # every rank: the world (group=[...] where other worlds list fewer: the merge says which)
            return Group(self.world.members, self.world.global_rank, listed=ranks)
        n = self.world.size()
        # torch's checks (distributed_c10d.new_group), and a rank listed twice
        if len(ranks) > n:
            raise ValueError("the new group's world size should be less or equal to the world size set by "
                             "init_process_group")
        if any(r < 0 or r >= n for r in ranks):
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"new_group({ranks}): a rank listed twice")
        if self.world.global_rank not in ranks:
            return NOT_MEMBER                         # torch's answer for a group this rank is not in
        g = self.mesh_groups.get(frozenset(ranks))
        if g is not None and g.members == sorted(ranks):
            return g                                  # a mesh dim's group: group=tp
        # the ranks listed: group=[E, ...], each entry an expression of P (sorted, as new_group sorts them)
        return Group(sorted(ranks), self.world.global_rank, listed=ranks)

    @staticmethod
    def is_initialized():
        return True

    def get_world_size(self, group=None):
        return self.group(group).size()

    def get_rank(self, group=None):
        return self.group(group).rank()

    def get_global_rank(self, group, group_rank):
        return self.group(group).members[group_rank]

    def get_process_group_ranks(self, group):
        return list(self.group(group).members)

    # collectives ---------------------------------------------------------
    def _collective(self, kind, t, consts, sizes, group, run, out_buf=None):
        """Records the collective on tracked tensor t; run() gives the result
        (raising where PyTorch would); out_buf, if given, takes it."""
        rec, g = self.rec, self.group(group)
        if id(t) in rec.stale:
            raise TraceError("unsupported", user_line()[0], f"{kind} of a view that shares memory with a tensor "
                             f"an in-place collective changed at {rec.stale[id(t)]}",
                             "use the tensor the collective wrote (or make the view after it)")
        if not rec.known(t):
            raise TraceError("unsupported", user_line()[0], f"{kind} of a tensor not computed from the input",
                             "only tensors computed from X are traced")
        rec.paused += 1
        try:
            st = Step(kind, [rec.node_of(t)], consts, sizes, group=g.text())
            rec.begin(st, t)
            try:
                res = run(g)
            except RuntimeError as ex:
                rec.failed_step = st
                raise step_failed(st, ex) from ex
            if out_buf is None:
                return rec.done(st, res)
            rec.done(st, res)
            into_slice = rec.buffer_of(out_buf) is not None and not rec.whole(out_buf)
            if tuple(out_buf.shape) != tuple(res.shape):
                # the buffer has another shape of the same size ([P, n] for [P*n]): a view of the result
                vst = Step("view", [st.outs[0]], [out_buf.dim()], list(out_buf.shape))
                vst.in_shape = tuple(res.shape)
                rec.emit(vst, out_buf)
            else:
                rec.track(out_buf, st.outs[0])
            if into_slice:  # a slice of a buffer the code allocated: the buffer is written there
                node = rec.node_of(out_buf)
                rec.write(out_buf, node, out_buf)
                rec.track(out_buf, node)
            return None
        finally:
            rec.paused -= 1

    @staticmethod
    def _contig(t):
        if not t.is_contiguous():
            raise RuntimeError("Tensors must be contiguous")

    def all_to_all_single(self, output, input, output_split_sizes=None, input_split_sizes=None,
                          group=None, async_op=False):
        g = self.group(group)
        me = g.rank()
        sizes, forms = [], []
        for name, lst, mine in (("in", input_split_sizes, "src"), ("out", output_split_sizes, "dst")):
            if lst is None:
                continue
            if isinstance(lst, torch.Tensor) and self.rec.known(lst):
                raise unsupported("item")
            vals = [int(v) for v in (lst.tolist() if isinstance(lst, torch.Tensor) else lst)]
            if len(vals) != g.size():
                raise RuntimeError(f"{name} split sizes: {len(vals)} entries for {g.size()} ranks")
            other = "dst" if mine == "src" else "src"
            sizes.append([({mine: me, other: j}, v) for j, v in enumerate(vals)])
            forms.append(name)

        def run(g):
            self._contig(input)
            if input_split_sizes is None and input.shape[0] % g.size():
                raise RuntimeError(f"dim 0 ({input.shape[0]}) is not divisible by the world size {g.size()}")
            if input_split_sizes is not None and sum(sizes[0][j][1] for j in range(g.size())) != input.shape[0]:
                raise RuntimeError("Split sizes doesn't match total dim 0 size")
            rows = output.shape[0] if output_split_sizes is not None else input.shape[0]
            return input.new_zeros([rows] + list(input.shape[1:]))
        self._collective("all_to_all_single", input, forms, sizes, group, run, output)
        return Work() if async_op else None

    def all_gather_into_tensor(self, output_tensor, input_tensor, group=None, async_op=False):
        def run(g):
            self._contig(input_tensor)
            return torch.cat([input_tensor] * g.size(), 0)
        self._collective("all_gather_into_tensor", input_tensor, [], [], group, run, output_tensor)
        return Work() if async_op else None

    def _all_gather_base(self, output_tensor, input_tensor, group=None, async_op=False):
        return self.all_gather_into_tensor(output_tensor, input_tensor, group, async_op)

    def reduce_scatter_tensor(self, output, input, op=None, group=None, async_op=False):
        op = _op(dist.ReduceOp.SUM if op is None else op)
        P = self.group(group).size()
        if self.rec.known(input) and input.dim() > 0 and input.is_contiguous() and \
                output.numel() * P == input.numel() and \
                tuple(output.shape) != (input.shape[0] // P,) + tuple(input.shape[1:]):
            # an output of another shape: NCCL (and torch's check) see only
            # element counts, rank r gets the r-th run of the input's memory
            input = input.reshape(-1)

        def run(g):
            self._contig(input)
            if input.shape[0] % g.size():
                raise RuntimeError(f"dim 0 ({input.shape[0]}) is not divisible by the world size {g.size()}")
            return input.narrow(0, 0, input.shape[0] // g.size()).clone()
        self._collective("reduce_scatter_tensor", input, [op], [], group, run, output)
        return Work() if async_op else None

    def _reduce_scatter_base(self, output, input, op=None, group=None, async_op=False):
        return self.reduce_scatter_tensor(output, input, op, group, async_op)

    def all_reduce(self, tensor, op=None, group=None, async_op=False):
        op = _op(dist.ReduceOp.SUM if op is None else op)

        def run(g):
            self._contig(tensor)
            return tensor
        self._collective("all_reduce", tensor, [op], [], group, run)   # in place: tensor is the result
        self.rec.written_in_place(tensor, user_line()[0])
        return Work() if async_op else None

    def all_gather(self, tensor_list, tensor, group=None, async_op=False):
        rec, g = self.rec, self.group(group)
        if not rec.known(tensor):
            raise TraceError("unsupported", user_line()[0], "all_gather of a tensor not computed from the input")
        if len(tensor_list) != g.size():
            raise RuntimeError(f"all_gather: a list of {len(tensor_list)} tensors for {g.size()} ranks")
        st = Step("all_gather", [rec.node_of(tensor)], [None], [[]], group=g.text())   # sizes: at the cat
        st.in_shape = tuple(tensor.shape)
        st.buffers = [tuple(b.shape) for b in tensor_list]
        rec.steps.append(st)
        for k, b in enumerate(tensor_list):
            rec.add_piece(b, GatherPiece(st, k, g.size()))
        return Work() if async_op else None

    def reduce_scatter(self, output, input_list, op=None, group=None, async_op=False):
        rec, g = self.rec, self.group(group)
        op = _op(dist.ReduceOp.SUM if op is None else op)
        ps = [rec.pieces.get(id(x)) for x in input_list]
        one = ps and all(isinstance(p, Piece) for p in ps) and len({(p.src, p.dim) for p in ps}) == 1 \
            and len(ps) == g.size()
        chunks = one and all(p.mode == "chunk" for p in ps) and [p.k for p in ps] == list(range(g.size())) \
            and ps[0].n == g.size()
        rows = one and all(p.mode == "narrow" for p in ps) and ps[0].start == 0 and \
            all(a.start + a.length == b.start for a, b in zip(ps, ps[1:])) and \
            ps[-1].start + ps[-1].length == ps[0].src_shape[ps[0].dim]
        if not (chunks or rows):
            raise unsupported("reduce_scatter", "reduce_scatter is traced when its list is torch.chunk(t, P, dim) "
                              "or torch.split(t, sizes, dim) of one tensor, in order (`reduce_scatter dim=i`)")
        rec.paused += 1
        try:
            sizes = [] if chunks else [[({"dst": k}, p.length) for k, p in enumerate(ps)]]
            st = Step("reduce_scatter", [ps[0].src], [ps[0].dim, op, "sizes" if sizes else ""], sizes,
                      group=g.text())
            st.in_shape = ps[0].src_shape
            rec.steps.append(st)
            rec.done(st, output)
        finally:
            rec.paused -= 1
        return Work() if async_op else None

    def broadcast(self, tensor, src, group=None, async_op=False):
        g = self.group(group)
        if src not in g.members:
            raise RuntimeError(f"broadcast: rank {src} is not in the group")

        def run(g):
            return tensor
        self._collective("broadcast", tensor, [], [g.members.index(src)], group, run)   # in place
        self.rec.written_in_place(tensor, user_line()[0])
        return Work() if async_op else None

    def barrier(self, *a, **k):
        return Work() if k.get("async_op") else None

    # point to point: one send and one receive per rank, in either order
    # (send/isend then recv/irecv, or the other way), or batched
    def _p2p(self, kind, tensor, peer, group):
        if self.pending is None:
            self.pending = (kind, tensor, peer, group, user_line()[0])
            return
        pk, pt, ppeer, pgroup, where = self.pending
        self.pending = None
        if pk == kind:
            raise unsupported(kind, f"two {kind}s in a row (the first at {where}): a rank that sends one tensor "
                              "and receives one is traced, in either order")
        if pgroup is not group:
            raise unsupported(kind, f"the send and the receive are on different groups (the first at {where})")
        if pk == "send":
            self._sendrecv(pt, ppeer, tensor, peer, group)
        else:
            self._sendrecv(tensor, peer, pt, ppeer, group)

    def send(self, tensor, dst, group=None, tag=0):
        self._p2p("send", tensor, dst, group)

    def isend(self, tensor, dst, group=None, tag=0):
        self._p2p("send", tensor, dst, group)
        return Work()

    def recv(self, tensor, src=None, group=None, tag=0):
        if src is None:
            raise unsupported("recv", "a receive from any source is not traced: name the source rank")
        self._p2p("recv", tensor, src, group)
        return src

    def irecv(self, tensor, src=None, group=None, tag=0):
        if src is None:
            raise unsupported("irecv", "a receive from any source is not traced: name the source rank")
        self._p2p("recv", tensor, src, group)
        return Work()

    def _sendrecv(self, t, dst, buf, src, group):
        """`sendrecv to=E from=F`: t sent to dst, buf (of t's shape) received
        from src; E, F are solved over the ranks, as group ranks."""
        g = self.group(group)
        for what, peer in (("send to", dst), ("receive from", src)):
            if peer not in g.members:
                raise RuntimeError(f"{what} rank {peer}: not in the group")
        if tuple(buf.shape) != tuple(t.shape):
            raise unsupported("sendrecv", f"the receive buffer {list(buf.shape)} has another shape than the "
                              f"tensor sent {list(t.shape)}: only a same-shape exchange is traced")

        def run(g):
            self._contig(t)
            return t.new_zeros(t.shape)
        self._collective("sendrecv", t, [], [[({}, g.members.index(dst))], [({}, g.members.index(src))]], group,
                         run, buf)

    def batch_isend_irecv(self, p2p_op_list):
        """One isend of a tracked tensor and one irecv into a buffer of its
        shape, on one group: `sendrecv to=E from=F` (E, F solved over the
        ranks, group ranks), the buffer taking the result."""
        ops = list(p2p_op_list)
        sends = [o for o in ops if getattr(o.op, "__name__", "") == "isend"]
        recvs = [o for o in ops if getattr(o.op, "__name__", "") == "irecv"]
        if len(sends) != 1 or len(recvs) != 1 or len(ops) != 2:
            raise unsupported("batch_isend_irecv", f"a batch of {len(sends)} isend and {len(recvs)} irecv: only "
                              "one of each (a rank sends one tensor and receives one) is traced")
        snd, rcv = sends[0], recvs[0]
        for o in (snd, rcv):  # a peer given as a group rank (torch 2.x's group_peer)
            if o.peer is None and getattr(o, "group_peer", None) is not None:
                o.peer = self.group(o.group).members[o.group_peer]
        if snd.group is not rcv.group:
            raise unsupported("batch_isend_irecv", "the isend and the irecv are on different groups")
        self._sendrecv(snd.tensor, snd.peer, rcv.tensor, rcv.peer, snd.group)
        return [Work(), Work()]

    # functional collectives (torch 2.x's torch.distributed._functional_collectives):
    # each as torch writes it, the collective into a new tensor
    def _fgroup(self, group):
        """A functional collective's group: a process group, (mesh, mesh_dim)
        of a mesh whose get_group gives one, a one-dim mesh, or the list of
        a group's world ranks."""
        if isinstance(group, tuple) and len(group) == 2 and hasattr(group[0], "get_group"):
            return self.group(group[0].get_group(group[1]))
        if hasattr(group, "get_group") and not isinstance(group, Group):
            return self.group(group.get_group())
        if isinstance(group, list) and all(isinstance(r, int) for r in group):
            g = self.new_group(group)
            if g is NOT_MEMBER:
                raise TraceError("unsupported", user_line()[0], f"a functional collective on ranks {group}, "
                                 "which this rank is not one of", "every rank calls it with its own group")
            return g
        return self.group(group)

    @staticmethod
    def _fop(op):
        ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
               "product": dist.ReduceOp.PRODUCT}
        if str(op).lower() not in ops:
            raise unsupported("reduce op", f"reduction '{op}' has no step: the language reduces by sum, max, "
                              "min, prod")
        return ops[str(op).lower()]

    def funcol_all_gather_tensor(self, t, gather_dim, group, tag=""):
        # all_gather_tensor: the gather into [size * d0, ...], then
        # torch.cat(torch.chunk(res, size, dim=0), dim=gather_dim)
        g = self._fgroup(group)
        if not t.is_contiguous():
            raise AssertionError("Tensor must be contiguous for all_gather_tensor")
        res = t.new_empty([g.size() * t.shape[0]] + list(t.shape[1:]))
        self.all_gather_into_tensor(res, t, group=g)
        if gather_dim != 0:
            res = torch.cat(torch.chunk(res, g.size(), dim=0), dim=gather_dim)
        return res

    def funcol_reduce_scatter_tensor(self, t, reduceOp, scatter_dim, group, tag=""):
        # reduce_scatter_tensor: scatter_dim != 0 is chunked and concatenated along dim 0 first
        g = self._fgroup(group)
        if t.size(scatter_dim) % g.size() != 0:
            raise AssertionError(f"input dimension 0 ({t.size(0)} must be a multiple of group_size {g.size()})")
        if scatter_dim != 0:
            t = torch.cat(torch.chunk(t, g.size(), dim=scatter_dim))
        res = t.new_empty([t.shape[0] // g.size()] + list(t.shape[1:]))
        self.reduce_scatter_tensor(res, t, op=self._fop(reduceOp), group=g)
        return res

    def funcol_all_reduce(self, t, reduceOp, group, tag=""):
        g = self._fgroup(group)
        res = t.clone()
        self.all_reduce(res, op=self._fop(reduceOp), group=g)
        return res

    def funcol_all_to_all_single(self, t, output_split_sizes, input_split_sizes, group, tag=""):
        g = self._fgroup(group)
        if (output_split_sizes is None) != (input_split_sizes is None):
            raise AssertionError("output_split_sizes and input_split_sizes must either be specified together "
                                 "or both set to None")
        rows = t.shape[0] if output_split_sizes is None else sum(int(v) for v in output_split_sizes)
        res = t.new_empty([rows] + list(t.shape[1:]))
        self.all_to_all_single(res, t, output_split_sizes, input_split_sizes, group=g)
        return res

    @staticmethod
    def funcol_wait_tensor(t):
        return t

    # installing ----------------------------------------------------------
    NAMES = ["all_to_all_single", "all_gather_into_tensor", "_all_gather_base", "reduce_scatter_tensor",
             "_reduce_scatter_base", "all_reduce", "all_gather", "reduce_scatter", "barrier", "broadcast",
             "new_group", "get_world_size", "get_rank", "get_global_rank", "get_process_group_ranks", "is_initialized",
             "send", "recv", "isend", "irecv", "batch_isend_irecv"]
    REFUSED = ["gather", "scatter",
               "reduce", "all_to_all", "all_gather_object", "broadcast_object_list", "all_gather_coalesced"]
    # torch.distributed._functional_collectives (torch 2.x): name -> SimDist method
    FUNCOL = {"all_gather_tensor": "funcol_all_gather_tensor",
              "all_gather_tensor_autograd": "funcol_all_gather_tensor",
              "reduce_scatter_tensor": "funcol_reduce_scatter_tensor",
              "reduce_scatter_tensor_autograd": "funcol_reduce_scatter_tensor",
              "all_reduce": "funcol_all_reduce",
              "all_to_all_single": "funcol_all_to_all_single",
              "all_to_all_single_autograd": "funcol_all_to_all_single",
              "wait_tensor": "funcol_wait_tensor"}


_current = []


class P2POp:
    """torch.distributed.P2POp while a trace runs: its fields only (torch
    2.x's looks its group up among the real process groups, which a
    simulated group is not)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer


def _dispatch(name, method=None, module="torch.distributed"):
    """module.name while a trace runs: the SimDist method of that name (or method)."""
    def f(*a, **k):
        if not _current:
            raise TraceError("usage", user_line()[0], f"{module}.{name} is called outside the traced "
                             "call (when the module is imported)",
                             "shardcheck simulates the process group only while --call runs: move the call "
                             "into the function")
        return getattr(_current[-1], method or name)(*a, **k)
    f.__name__ = name
    return f


def _refuse(name):
    def f(*a, **k):
        raise unsupported(name, f"torch.distributed.{name} is not traced yet: write this exchange by hand "
                          "(docs/language.md, Sized exchanges)")
    return f


@contextlib.contextmanager
def installed():
    """Replaces torch.distributed's functions for the duration (each call
    goes to the SimDist of the trace running, see activate)."""
    saved = {}
    mods = [dist]
    try:
        import torch.distributed.distributed_c10d as c10d
        mods.append(c10d)
    except ImportError:
        pass
    repl = {n: _dispatch(n) for n in SimDist.NAMES}
    repl.update({n: _refuse(n) for n in SimDist.REFUSED})
    repl["P2POp"] = P2POp
    repl["is_initialized"] = lambda: True
    repl["is_available"] = lambda: True
    for m in mods:
        for n, f in repl.items():
            saved[(m, n)] = getattr(m, n, None)
            setattr(m, n, f)
    try:  # torch 2.x: a DeviceMesh made in the traced call is the trace's
        import torch.distributed.device_mesh as dm
        saved[(dm, "init_device_mesh")] = dm.init_device_mesh
        dm.init_device_mesh = init_device_mesh
    except (ImportError, AttributeError):
        pass
    try:  # torch 2.x: the functional collectives, as DTensor and torchtitan call them
        import torch.distributed._functional_collectives as funcol
        for n, meth in SimDist.FUNCOL.items():
            if hasattr(funcol, n):
                saved[(funcol, n)] = getattr(funcol, n)
                setattr(funcol, n, _dispatch(n, meth, "torch.distributed._functional_collectives"))
    except ImportError:
        pass
    # PyTorch 1.13 hands t[a:b] and t[k] (an index that is not a tuple) to
    # no TorchFunctionMode: such an index goes to the recorder from here
    orig = torch.Tensor.__getitem__

    def getitem(self, idx):
        rec = _current[-1].rec if _current else None
        if rec is not None and not rec.paused and not isinstance(idx, tuple) and rec.known(self):
            return rec.__torch_function__(orig, (torch.Tensor,), (self, idx), {})
        return orig(self, idx)
    getitem.__name__ = "__getitem__"
    saved[(torch.Tensor, "__getitem__")] = orig
    torch.Tensor.__getitem__ = getitem
    # nor t[a:b] = u: an assignment of a traced tensor goes to the recorder
    # (into a buffer the code allocated: a write; elsewhere refused)
    orig_set = torch.Tensor.__setitem__

    def setitem(self, idx, value):
        rec = _current[-1].rec if _current else None
        if rec is not None and not rec.paused and isinstance(value, torch.Tensor) and rec.known(value):
            return rec.__torch_function__(orig_set, (torch.Tensor,), (self, idx, value), {})
        return orig_set(self, idx, value)
    setitem.__name__ = "__setitem__"
    saved[(torch.Tensor, "__setitem__")] = orig_set
    torch.Tensor.__setitem__ = setitem
    try:
        yield
    finally:
        for (m, n), f in saved.items():
            if f is None:
                delattr(m, n)
            else:
                setattr(m, n, f)


@contextlib.contextmanager
def activate(sim):
    _current.append(sim)
    try:
        yield
    finally:
        _current.pop()

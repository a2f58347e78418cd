"""A checker written by hand, for the speed comparison of bench_speed.sh:
the semantics of DeepSpeed Ulysses' heads-to-sequence all-to-all
(corpus/deepspeed/sf-head2seq-batchdim.sc) checked with numpy, every rank
at once (a leading rank axis), on the cases `sc_bench --same-cases` drew
and shardcheck checked.

Per case: X = arange over [s, b, h, d]; every rank's input is its h shard;
the spec's steps (reshape [P, s/P, b, h/P, d], all_to_all_single, permute
1 2 0 3 4, reshape [s/P, b, h, d]) run on the stacked ranks; the result
must equal every rank's s shard of X.

Usage: numpy_checker.py CASES_FILE   (lines "world s b h d")
Prints: numpy N cases T s C cases/s K pass"""
import sys
import time

import numpy as np


def check(P, s, b, h, d):
    X = np.arange(s * b * h * d, dtype=np.int32).reshape(s, b, h, d)
    # rank r's input, shard h: [P, s, b, h/P, d]
    x = np.ascontiguousarray(X.reshape(s, b, P, h // P, d).transpose(2, 0, 1, 3, 4))
    # reshape [P, s/P, b, h/P, d] on every rank: [rank, chunk, s/P, b, h/P, d]
    x = x.reshape(P, P, s // P, b, h // P, d)
    # all_to_all_single: rank r's chunk j comes from rank j's chunk r
    x = x.transpose(1, 0, 2, 3, 4, 5)
    # permute 1 2 0 3 4 and reshape [s/P, b, h, d] on every rank
    y = np.ascontiguousarray(x.transpose(0, 2, 3, 1, 4, 5)).reshape(P, s // P, b, h, d)
    return np.array_equal(y, X.reshape(P, s // P, b, h, d))


def main():
    with open(sys.argv[1]) as f:
        cases = [tuple(int(v) for v in line.split()) for line in f if line.strip()]
    t0 = time.perf_counter()
    ok = sum(check(*c) for c in cases)
    dt = time.perf_counter() - t0
    print(f"numpy {len(cases)} cases {dt:.3f} s {len(cases) / dt:.0f} cases/s {ok} pass")
    return 0 if ok == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())

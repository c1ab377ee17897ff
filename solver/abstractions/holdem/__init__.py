"""Card abstractions of the limit hold'em family and what is solved in them.

* `buckets`: hands bucketed by E[HS²] with perfect or imperfect recall (descriptor kind
  ``buckets``), solved by full-width CFR on the real tree in `bucket_solve`;
* `percentiles`: hands bucketed by E[HS²] percentile, imperfect recall (kind ``ehs2``), for
  members as big as heads-up limit hold'em, solved by chance-sampled CFR (`sampled_cfr`, whose
  numba kernel is `sampled_kernel`);
* `bot`: such a solve's strategy as the store's tables, and `HulheBot`, which plays them (the
  blueprint that the re-solving bot of `solver.resolving` plays over).
"""

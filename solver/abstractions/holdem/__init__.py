"""Card abstractions of the limit hold'em family and what is solved in them.

* `buckets`: hands bucketed by E[HS²] with perfect or imperfect recall (descriptor kind
  ``buckets``), solved by full-width CFR on the real tree in `bucket_solve`;
* `percentiles`: hands bucketed by E[HS²] percentile, imperfect recall (kind ``ehs2``), for
  members as big as heads-up limit hold'em, solved by chance-sampled CFR (`sampled_cfr`, whose
  numba kernel is `sampled_kernel`);
* `bot`: such a solve's strategy as the store's tables, and `HulheBot`, which plays them;
* re-solving at play time (issue 20): `subgame` compiles the rest of a hand from its betting and
  board, `resolving_bot` re-solves it at each decision over a blueprint, `resolving_kind` is the
  descriptor kind (``resolve``) that the app plays, `resolving_store` stores it.
"""

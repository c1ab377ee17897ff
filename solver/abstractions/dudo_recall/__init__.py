"""Dudo remembering only the last bids (Neller & Hnath 2011): the mapping of a real position to
its abstract key (`remembered_bids`, the descriptor kind ``recall``), the abstract game's graph
and how an abstract strategy plays in the real game (`graph`), and its solve by FSICFR
(`solve`)."""

"""DeepStack on no-limit Leduc (Moravčík et al. 2017; DeepStack-Leduc's game): continual
re-solving with a lookahead of limited depth, a learned counterfactual value function at its
leaves.

* `solver.deepstack.situations`: random situations at the start of the second round (both
  ranges, the pot), each solved by CFR: the value function's training data.
* `solver.deepstack.value_net`: the value function, trained on those situations, evaluated in
  numpy at play time.
* `solver.deepstack.value_build`: its build: situations solved in chunks on Dask (resumable),
  the network trained and measured on situations it never saw.
"""

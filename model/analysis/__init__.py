"""Analysis of captured attention and of the equations: head statistics, rollout, the step-by-step
arithmetic, word order, shift identity, relative positions, reach through layers, cost, in-context copying. Imports
engine, data, architectures, checkpoints, tasks and the model handle; never training or the lab."""

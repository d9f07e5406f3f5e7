"""Analysis of captured attention and of the equations: head statistics, rollout, the step-by-step
arithmetic, word order, shift identity, relative positions, reach through layers, cost. Imports
engine, data, architectures and tasks."""

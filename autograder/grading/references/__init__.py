"""What hidden tests compare against: the grader's own seed, and the outputs and tests recorded from the solutions.

`_seed.py` picks the seed a grading run draws hidden inputs from (both graders) and keeps its references current;
`_references.py` records reference outputs and the packaged tests (`jax-course references`); `_compiled.py` runs the
solution once more, compiling for every grading kernel the programs it would otherwise compile again.
"""

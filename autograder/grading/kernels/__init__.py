"""Where a notebook's kernel comes from: a fresh one each time, forked from a nursery that imported its libraries once.

`_manager.py` is the kernel manager nbclient takes (`WarmKernelManager`), for every path that runs a notebook;
`_nursery.py` the process it forks kernels (and the verifier) from; `_in_the_nursery.py` what runs there;
`_keeper.py` the process between each kernel and the grader, which bounds it and ends what it started;
`_outputs.py` what a graded notebook keeps of its outputs; `_memory.py` how every limit counts memory.
"""

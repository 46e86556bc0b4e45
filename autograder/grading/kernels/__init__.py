"""Where a notebook's kernel comes from: a fresh one each time, forked from a nursery that imported its libraries once.

`_manager.py` is the kernel manager nbclient takes (`WarmKernelManager`), for every path that runs a notebook;
`_nursery.py` the process it forks kernels (and the verifier) from; `_in_the_nursery.py` what runs there.
"""

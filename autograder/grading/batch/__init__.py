"""`jax-course grade`: a class graded in parallel and resumably, each notebook run under limits away from the grader.

`_run.py` drives a batch, with nbgrader's converter (`_convert.py`) in this process; `_workers.py` hands notebooks to
this machine's cores or a Dask cluster's workers; `_runner.py` runs one under limits in a child process (`_driver.py`,
forked by multiprocessing's forkserver); `_ledger.py` remembers what is done; `_failures.py` says why a submission
could not be graded.
"""

"""The self-check, for a self-learner: a report on one's own notebook, with no instructor and no gradebook.

`_selfcheck.py` runs the notebook (`ag.check_my_work()`, `jax-course check`), graded as an instructor would where the
course's solutions are at hand; `_selfreport.py` says what each test found; `_watch.py` checks again on every save
(`jax-course watch`); `_calibrate.py` says whether timings mean anything on this machine; `_released.py` keeps each
set's generated assignment for the next check.
"""

"""Verification: SMT-LIB read with limits and run by Z3 in isolated workers, its value compared
with the gold answer (import -> construct -> **verify** -> review -> release). Answers are
read as exact rationals on the reading floor (``qcstation.core.reading.answers``); nothing
here imports construction, review or release.

Modules, bottom up (a module imports only those above it in this list)
-------------------------------------------------------------------------
``smtlib``     the SMT-LIB subset, parsed with limits (size, depth, commands allowed).
``outcome``    what a verification says (status, value, reason).
``isolation``  Z3 in a worker process with time and memory limits.
``solve``      one script solved: the value of ``answer`` read from the model.
``pool``       many scripts across worker processes.
``meaning``    whether a formalization's numbers are the question's (stated numbers,
               redaction, ``check_meaning``).
``verifier``   the public interface: verify a script against a gold answer.
"""

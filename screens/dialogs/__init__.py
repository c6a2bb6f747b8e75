"""Every dialog of the workstation (each a ``ModalScreen``), one module per dialog.

A dialog asks one thing and dismisses with the answer (or None on Esc); the screen that
shows it passes a callback. Dialogs import nothing of ``screens`` but ``screens._base``
(the :class:`~screens._base.Workstation` interface), so any screen may show any dialog:

* ``approve_release``: name, version and notes of a release to approve
* ``comment``: a note for the next review decision
* ``confirm``: a yes/no question
* ``error``: an error the user must read
* ``exclude_seed``: why a seed is excluded from the dataset
* ``fix_item``: edit an item in place (``FixModal``); a curator's override (``ResolveModal``)
* ``help``: the keys of the screen below, and its notes
* ``pick_run``: the run to compare an item with
* ``reject_reason``: why an item is rejected
* ``start_run``: the form that starts an evaluation run
"""

"""Ingest: seed files in, seeds (active, filtered or duplicate, each with its reason) stored.

The first stage of the lifecycle. ``qcstation import`` (``qcstation/commands/import_.py``)
and ``quickstart`` call :func:`importer.import_file`; nothing here imports Textual, and
nothing outside this package needs more than ``importer`` and ``formats``.

Modules and their contract (each imports only the ones listed before it):

``readers``   bytes to records. Refuses what cannot be read safely before reading a
              record (:func:`~.readers.check_readable`: missing, folder, FIFO or device,
              UTF-16/32, binary); yields :class:`~.readers.Raw` records (line, number,
              data or error) from JSON Lines, one JSON array, or CSV/TSV, optionally
              compressed. Holds every limit on untrusted files (bytes per line, array
              size, JSON depth, field sizes). Knows no dataset format.
``steps``     how many reasoning steps a seed takes (arithmetic operations in an equation
              or a worked solution), for the single-step filter. Pure text functions.
``filters``   SMART's seed filters (not a single number, single step, GCD/LCM, min/max):
              :func:`~.filters.check_seed` on a seed's texts. Pure text functions.
``formats``   THE table of formats (:data:`~.formats.TABLE`): per format its converter
              (record -> :class:`~.formats.Draft`, or :class:`~.formats.RecordError`),
              the SMART level of its dataset and its reader; format detection, default
              source names, ``--map`` parsing. Uses ``readers`` and ``steps``.
``importer``  the orchestration: opens the reader of the format, checks what needs the
              first record before anything is written, drafts every record, applies the
              filters, finds duplicates and re-imports, stores batches in the ``seeds``
              table with an ``import_runs`` row and an event, and returns an
              :class:`~.importer.ImportReport`. The only module that touches the database.

A bad record costs one ``FILE:LINE`` error and the rest imports; a file that cannot be
imported at all raises :class:`qcstation.common.errors.ImportFormatError` before any
record is stored.
"""

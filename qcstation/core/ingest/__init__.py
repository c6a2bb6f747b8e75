"""Ingest: seed files in, seeds (active, filtered or duplicate, each with its reason) stored.

The first stage of the lifecycle. ``qcstation import`` (``qcstation/commands/import_.py``)
and ``quickstart`` call :func:`importer.import_file`; nothing here imports Textual, and
nothing outside this package needs more than ``importer`` and ``formats``.

Modules and their contract (each imports only the ones listed before it):

``readers``   bytes to records. Refuses what cannot be read safely before reading a
              record (:func:`~.readers.check_readable`: missing, folder, FIFO or device,
              UTF-16/32, binary; :func:`~.readers.check_decompressed`: a ``.gz``/``.bz2``/
              ``.xz`` file beyond its decompressed bytes or lines, or damaged); yields
              :class:`~.readers.Raw` records (line, number, data or error) from JSON
              Lines, one JSON array (checked whole first), or CSV/TSV (an unclosed quote
              refuses the file with its line). A record with a duplicate key, or a
              header with two columns equal but for case, is an error, never a silent
              last value. Holds every limit on
              untrusted files. Knows no dataset format.
``steps``     how many reasoning steps a seed takes (arithmetic operations in an equation
              or a worked solution), for the single-step filter. Pure text functions.
``filters``   SMART's seed filters (not a single number, single step, GCD/LCM, min/max):
              :func:`~.filters.check_seed` on a seed's texts. Pure text functions.
``errata``    seeds whose dataset gold answer contradicts their own question, found by
              reading (:data:`~.errata.ERRATA`, keyed by the question's content hash and
              the gold as written): :func:`~.errata.erratum` gives their ``gold_error``
              filter hit with the evidence. Pure data. Uses ``filters``.
``formats``   THE table of formats (:data:`~.formats.TABLE`): per format its converter
              (record -> :class:`~.formats.Draft`, or :class:`~.formats.RecordError`),
              the SMART level of its dataset, its reader and, for the sets read by
              columns (SVAMP, ASDiv, generic files), its column mapping (``A+B`` joins
              columns); format detection, default source names, ``--map`` parsing, the
              message for a first record without the fields a format needs, answers
              written with a unit. Uses ``readers`` and ``steps``.
``importer``  the orchestration: opens the reader of the format, checks what needs the
              first record before anything is written, drafts every record, applies the
              filters, finds duplicates and re-imports, stores batches in the ``seeds``
              table with an ``import_runs`` row and an event, and returns an
              :class:`~.importer.ImportReport` (with warnings when many questions state
              no number or repeat one). The only module that touches the database.

A bad record costs one ``FILE:LINE`` error and the rest imports; a file that cannot be
imported at all raises :class:`qcstation.common.errors.ImportFormatError` before any
record is stored (a read that fails mid-file keeps the batches already stored, and says
so).
"""

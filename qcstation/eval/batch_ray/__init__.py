"""The batch route on a Ray cluster: ``eval export-batch`` files through a Ray Data pipeline.

``qcstation eval ray-batch IN... --out OUT`` reads OpenAI Batch input files (as
``eval export-batch`` writes them), runs their requests through Ray Data LLM's processors
and writes one OpenAI Batch *output* file that ``eval import-batch`` stores by
``custom_id``. Two engines:

* ``http`` (default): Ray's ``HttpRequestProcessorConfig`` + ``build_processor`` against
  any OpenAI-compatible endpoint (``vllm serve`` replicas behind a balancer, several base
  URLs, a hosted API). Runs on CPUs: the local cluster this command starts, or one at
  ``--address``.
* ``vllm``: Ray's ``vLLMEngineProcessorConfig`` (the model loaded on the cluster's GPUs).

Guarantees, the same as the built-in client's (``backends.openai_compat``):

* the request bodies are the exported ones, byte for byte: a row carries its body as JSON
  *text*, so Arrow's schema unification across rows never adds a field (``"seed": null``
  in a greedy row) or retypes one;
* every HTTP request goes out through ``OpenAIBackend.send`` (Ray's ``session_factory``
  hook: :mod:`.http`), so replies are read with the same caps (16 MiB after
  decompression, JSON nodes and depth, surrogates, token counts), the same retries and
  backoff, the same load sharing over several base URLs, the key scrubbed from the text;
* the API key is read from ``$API_KEY_ENV`` *inside each worker process*: only the
  variable's name goes to Ray (actor arguments, logs, the dashboard), never its value,
  and nothing writes it;
* a row that fails (HTTP error, timeout, unusable reply, a vLLM error row, a line too
  long) becomes an error line of the output, never an exception in a Ray task: a job is
  lost only when the cluster itself fails, and then what was written stays;
* resumable by ``custom_id``: results are appended to OUT as they arrive (a line cut by a
  kill is dropped on the next start) and a rerun sends only the requests OUT holds no
  result for (``--retry-errors``: also those whose result is an error, which it replaces).

Modules, bottom up (each imports only those above it; only ``pipeline`` imports Ray)
---------------------------------------------------------------------------------------
``rows``      the row protocol, pure: an input line -> (custom_id, body text); the Ray
              rows of each engine (``http_row``, ``vllm_row``); a reply or a vLLM result
              row -> one OpenAI Batch output line (``reply_line``, ``vllm_line``,
              ``error_line``), at most ``MAX_LINE_BYTES`` long.
``files``     the files, pure: ``read_requests`` (input lines checked, bad ones reported
              as ``FILE:LINE: message``), ``OutputFile`` (what OUT already holds, the
              cut last line dropped, append with fsync, ``--retry-errors`` rewrite).
``http``      the worker side of the ``http`` engine: ``SessionFactory`` (picklable;
              Ray builds it into every HTTP actor) gives Ray's ``HttpRequestUDF`` a
              session whose ``post`` sends the row's body through one ``OpenAIBackend``
              per worker process and answers ``{"line": <output line>}``, never raising.
``pipeline``  Ray itself: ``RayBatchOptions``, the processors (``http_config``,
              ``vllm_config``, ``build``), ``run_batch`` (the local cluster or
              ``--address``, chunks of pending requests, lines written as they stream
              back) -> ``RayBatchSummary``.
"""

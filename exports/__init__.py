"""Released data sets are written under ``exports/<name>/<version>/``; :mod:`exports.writers`
holds the pure, byte-reproducible writers (JSONL, manifest, datasheet)."""

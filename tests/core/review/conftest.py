from tests.core.review.helpers import shipped, shipped_template  # noqa: F401  (fixtures)

# the shipped-sample database the review tests use (built once per module)
from tests.core.review.helpers import shipped, shipped_template  # noqa: F401  (fixtures)

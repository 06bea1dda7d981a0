"""book/profile_format.md: the format of the files ``python -m compsem profile`` writes; it
describes fields and states no result."""

NOT_CLAIMS = {
    "no evidence of a difference": "one of the outcome strings a comparison may hold (the file format)",
}

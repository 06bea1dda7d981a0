"""Pages that span the four studies: the compositionality profile and the try-it page.

They hold no maths of their own: :mod:`.synthesis` gathers each study's
``report.headlines(models)`` and :mod:`.tryit` each study's ``report.try_it(...)``.
"""

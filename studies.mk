# The studies of compsem/studies.py for the Makefile. Generated: do not edit; after a change
# to the registry run `.venv/bin/python -W ignore -m compsem.studies > studies.mk`
# (tests/compsem/test_studies.py fails while this file is out of date).
STUDIES := setcomp csts montague ssm
STUDY_PART_setcomp := 1
STUDY_PART_csts := 2
STUDY_PART_montague := 3
STUDY_PART_ssm := 4

#!/bin/sh
# A pairing program (tests) that says no valid pairing exists (bbpPairings'
# exit status 1), whether or not one does.
exit 1

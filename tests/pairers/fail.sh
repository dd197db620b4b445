#!/bin/sh
# A pairing program (tests) that fails: bbpPairings' "unexpected error".
exit 2

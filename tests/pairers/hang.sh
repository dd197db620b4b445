#!/bin/sh
# A pairing program (tests) that never answers: the server's timeout
# (QK_PAIRING_TIMEOUT_MS) kills it.
exec sleep 600

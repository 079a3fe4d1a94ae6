#!/usr/bin/env bash
# Installs everything the tests and examples use, on a Debian or Ubuntu machine (as root, or as
# a user with sudo), so that `cargo test --workspace` runs every test instead of skipping some:
#
#   scripts/install-mesa.sh         Mesa's software drivers (llvmpipe, lavapipe): GL and Vulkan
#                                   without a GPU (harmless beside a GPU driver)
#   scripts/install-fonts.sh        the fonts the text tests and the HUD draw with (fonts-*)
#   scripts/fetch-assets.sh         the CC0 asset pack of the loading tests (Python Arcade's
#                                   wheel, from PyPI with pip, into target/assets/)
#   scripts/install-test-tools.sh   astcenc, nvcompress, bc7enc: real files and reference decoders
#
# Each step does nothing when what it installs is there. .ci/run runs this too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-mesa.sh
scripts/install-fonts.sh
scripts/fetch-assets.sh
scripts/install-test-tools.sh

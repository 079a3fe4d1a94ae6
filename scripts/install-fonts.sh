#!/usr/bin/env bash
# Installs the fonts the text tests, the text bench and the HUD scene draw with, from Debian
# packages, when they are missing (run as root, as .ci/run does):
#   fonts-dejavu-core       Latin      /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
#   fonts-droid-fallback    CJK        /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf
#                           (one plain TrueType file of about 4 MB, outlines swash rasterises)
#   fonts-noto-color-emoji  emoji      /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
#                           (CBDT colour bitmaps: swash gives them as colour images)
# Nothing is downloaded when every file is already there.
set -euo pipefail

declare -A files=(
    [fonts-dejavu-core]=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
    [fonts-droid-fallback]=/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf
    [fonts-noto-color-emoji]=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
)

missing=()
for pkg in "${!files[@]}"; do
    [[ -f ${files[$pkg]} ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
    echo "install-fonts: all fonts present"
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    SUDO=sudo
else
    SUDO=
fi
echo "install-fonts: installing ${missing[*]}"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"

for pkg in "${!files[@]}"; do
    if [[ ! -f ${files[$pkg]} ]]; then
        echo "install-fonts: $pkg installed but ${files[$pkg]} is missing" >&2
        exit 1
    fi
done
echo "install-fonts: done"

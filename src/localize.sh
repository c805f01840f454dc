#!/bin/sh
# localize.sh IN.a OUT.a CC OBJCOPY AR - the installed static archive: every
# object of IN.a in one relocatable object whose hidden symbols (the
# library's internals: pmb__ names shared between its files) are made
# local, so a program linking it statically sees only the public API.
set -eu
in=$1 out=$2 cc=$3 objcopy=$4 ar=$5
obj=$out.o
rm -f "$obj" "$out"
"$cc" -r -nostdlib -o "$obj" -Wl,--whole-archive "$in" -Wl,--no-whole-archive
"$objcopy" --localize-hidden "$obj"
"$ar" rcs "$out" "$obj"
rm -f "$obj"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tools/utf8val/utf8val.bash as bash-completion runs it: the words offered after
# what a user has typed, against the command's own --help. TAP output.
# Usage: test_completion.sh PATH_TO_UTF8VAL
set -u
. "$(dirname "$0")/tap.sh"
cli=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# complete LINE: the words offered at the end of LINE, sorted, one line
complete_line() {
	(
		cd "$work" || exit 1
		. /usr/share/bash-completion/bash_completion
		. "$top/tools/utf8val/utf8val.bash"
		utf8val() { "$cli" "$@"; }	# _parse_help runs "utf8val --help"
		PATH=$(dirname "$cli"):$PATH
		COMP_LINE=$1
		COMP_POINT=${#COMP_LINE}
		# bash's own split: "=" is a word of its own
		read -r -a COMP_WORDS <<<"${1//=/ = }"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		# (compopt works only inside a real completion)
		_utf8val utf8val "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		[ ${#COMPREPLY[@]} -eq 0 ] ||
			printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
	)
}

if [ ! -r /usr/share/bash-completion/bash_completion ]; then
	result 1 "bash-completion is installed (scripts/install-deps host)"
	tap_done
	exit
fi
mkdir "$work/src" "$work/src2"
touch "$work/notes.txt" "$work/nothing.bin"

check() {	# check LINE WANT
	local got
	got=$(complete_line "$1")
	result "$([ "$got" = "$2" ]; echo $?)" "completion of '$1'" \
		"want: $2"$'\n'"got:  $got"
}

check "utf8val --fo" "--format= "
check "utf8val --format " "gnu json kv "
check "utf8val --format j" "json "
check "utf8val --color=" "always auto never "
check "utf8val --colour=a" "always auto "
check "utf8val --binary-files=w" "without-match "
check "utf8val --max-errors=" ""
check "utf8val --context=" ""
check "utf8val --color n" "notes.txt nothing.bin "
check "utf8val --context no" "notes.txt nothing.bin "
check "utf8val --exclude-dir=s" "src src2 "
check "utf8val no" "notes.txt nothing.bin "
check "utf8val -r s" "src src2 "
# every long option of --help is offered, and nothing else
# (but --colour, the alias --color's text names)
want=$("$cli" --help | grep -o -- '--[a-z0-9-]*' | grep -vx -- --colour |
	sort -u | tr '\n' ' ')
got=$(complete_line "utf8val --" | tr ' ' '\n' | sed 's/=$//' | grep . | sort | tr '\n' ' ')
result "$([ "$got" = "$want" ]; echo $?)" "'utf8val --' offers every option --help names, once" \
	"want: $want"$'\n'"got:  $got"
tap_done

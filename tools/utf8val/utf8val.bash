# SPDX-License-Identifier: GPL-2.0 OR MIT
# bash completion for utf8val(1): its options from --help, their values,
# and file names. Installed as
# /usr/share/bash-completion/completions/utf8val.

_utf8val()
{
	local cur prev words cword split

	_init_completion -s || return
	case $prev in
	--format)
		COMPREPLY=($(compgen -W 'kv gnu json' -- "$cur"))
		return
		;;
	--binary-files)
		COMPREPLY=($(compgen -W 'without-match text' -- "$cur"))
		return
		;;
	--color | --colour)
		# an optional value: "--color=WHEN"; "--color WHEN" is a FILE
		if $split; then
			COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
			return
		fi
		;;
	--context)
		$split && return	# a number; "--context FILE" is a FILE
		;;
	--files-from)
		_filedir
		return
		;;
	--exclude-dir)
		_filedir -d
		return
		;;
	--include | --exclude | --max-errors | -h | --help | \
	-V | --version)
		return	# a glob, a number, or nothing after
		;;
	esac
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$(_parse_help "$1")' -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	_filedir
}
complete -F _utf8val utf8val

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Driving a bash completion of kvperf without a terminal, for
# completion.sh (the tree's) and deb_install.sh (the installed one):
# source the completion first, then call offers.

# offers WORD...: sets got to what the completion offers for the command
# line WORDS, the last being the word under the cursor
offers() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_kvperf
	# shellcheck disable=SC2034 # the caller's
	got="${COMPREPLY[*]}"
}

# same WORDS WORDS: whether two lists hold the same words (no forks:
# completion.sh runs it a hundred times)
same() {
	local -A a=() b=()
	local w
	for w in $1; do a[$w]=1; done
	for w in $2; do b[$w]=1; done
	[ "${#a[@]}" -eq "${#b[@]}" ] || return 1
	for w in "${!a[@]}"; do
		[ -n "${b[$w]:-}" ] || return 1
	done
}

# shellcheck shell=bash
# Source me (bash):   . scripts/pulumi-env.sh
#
# Puts the Pulumi CLI of scripts/ensure-pulumi on PATH (building it on first
# use) and sets the variables that keep it from reaching the network. The
# backend, passphrase and PULUMI_HOME stay the caller's choice; see
# CONTRIBUTING.md, "The Pulumi CLI".
__pulumi_cms_bin="$("$(dirname "${BASH_SOURCE[0]}")/ensure-pulumi" | tail -n 1)" || return 1
case ":$PATH:" in
*":$__pulumi_cms_bin:"*) ;;
*) export PATH="$__pulumi_cms_bin:$PATH" ;;
esac
export PULUMI_SKIP_UPDATE_CHECK=1
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
unset __pulumi_cms_bin

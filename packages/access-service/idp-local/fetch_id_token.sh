# shellcheck shell=sh
# Fetch an ID token from the ianode identity provider (SPEC §8) and export it as IDP_ID_TOKEN.
#
#   source idp-local/fetch_id_token.sh [USER_EMAIL]     (bash, zsh)
#   IDP_USER=USER_EMAIL . idp-local/fetch_id_token.sh   (any POSIX sh: dash passes no arguments to `.`)
#
# Reads:  USER_POOL_ID        user pool            (default: the demo pool, local_ianode01)
#         CLIENT_ID           app client id        (default: the demo client, ianodedemoclient0000000001)
#         IDP_ADMIN_PASSWORD  the demo users' password (default: the demo default, Ianode-demo-1)
#         IDP_URL             the IdP's base URL   (default: http://localhost:9229)
# Without an argument it signs in $IDP_USER, else the default test user, user@ianode.local.
#
# Signs in with InitiateAuth (USER_PASSWORD_AUTH) using curl only (no AWS CLI, no jq). On success
# exports IDP_ID_TOKEN and prints one line saying for whom; on failure prints the IdP's error and
# returns non-zero. It never calls `exit`, so the shell that sourced it stays usable. The password
# goes to curl on standard input, never on a command line. Fetch tokens after group membership is
# in place: groups are written into the token when it is issued.

_fit_main() {
  _fit_user=${1:-${IDP_USER:-user@ianode.local}}
  _fit_url=${IDP_URL:-http://localhost:9229}
  _fit_url=${_fit_url%/}
  _fit_client=${CLIENT_ID:-ianodedemoclient0000000001}
  _fit_pool=${USER_POOL_ID:-local_ianode01}
  _fit_password=${IDP_ADMIN_PASSWORD:-Ianode-demo-1}

  if ! command -v curl >/dev/null 2>&1; then
    echo "fetch_id_token: curl is required" >&2
    return 2
  fi

  # JSON string escaping for the two values a user types: backslash and double quote.
  _fit_json_user=$(printf '%s' "$_fit_user" | sed 's/\\/\\\\/g; s/"/\\"/g')
  _fit_json_password=$(printf '%s' "$_fit_password" | sed 's/\\/\\\\/g; s/"/\\"/g')
  _fit_json_client=$(printf '%s' "$_fit_client" | sed 's/\\/\\\\/g; s/"/\\"/g')

  _fit_response=$(printf '{"AuthFlow":"USER_PASSWORD_AUTH","ClientId":"%s","AuthParameters":{"USERNAME":"%s","PASSWORD":"%s"}}' \
      "$_fit_json_client" "$_fit_json_user" "$_fit_json_password" |
    curl -sS --max-time 15 -X POST "$_fit_url/" \
      -H 'Content-Type: application/x-amz-json-1.1' \
      -H 'X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth' \
      --data-binary @- -w '
%{http_code}' 2>&1)
  _fit_curl_rc=$?
  if [ "$_fit_curl_rc" -ne 0 ]; then
    _fit_response=$(printf '%s\n' "$_fit_response" | sed '$d')
    echo "fetch_id_token: cannot reach the identity provider at $_fit_url: $_fit_response" >&2
    return 2
  fi

  _fit_status=$(printf '%s\n' "$_fit_response" | sed -n '$p')
  _fit_body=$(printf '%s\n' "$_fit_response" | sed '$d')
  _fit_token=$(printf '%s' "$_fit_body" | sed -n 's/.*"IdToken":"\([^"]*\)".*/\1/p')

  if [ "$_fit_status" = "200" ] && [ -n "$_fit_token" ]; then
    IDP_ID_TOKEN=$_fit_token
    export IDP_ID_TOKEN
    _fit_expires=$(printf '%s' "$_fit_body" | sed -n 's/.*"ExpiresIn":\([0-9]*\).*/\1/p')
    echo "IDP_ID_TOKEN set for $_fit_user (pool $_fit_pool, client $_fit_client, valid ${_fit_expires:-?} s)"
    return 0
  fi

  _fit_type=$(printf '%s' "$_fit_body" | sed -n 's/.*"__type":"\([^"]*\)".*/\1/p')
  _fit_message=$(printf '%s' "$_fit_body" | sed -n 's/.*"message":"\([^"]*\)".*/\1/p')
  _fit_challenge=$(printf '%s' "$_fit_body" | sed -n 's/.*"ChallengeName":"\([^"]*\)".*/\1/p')
  if [ -n "$_fit_challenge" ]; then
    echo "fetch_id_token: $_fit_user must answer the $_fit_challenge challenge first (set a permanent password)" >&2
  elif [ -n "$_fit_type" ]; then
    echo "fetch_id_token: sign-in of $_fit_user failed: ${_fit_type}: ${_fit_message} (HTTP $_fit_status)" >&2
  else
    echo "fetch_id_token: unexpected answer from $_fit_url (HTTP $_fit_status): $_fit_body" >&2
  fi
  return 1
}

_fit_main "$@"
_fit_rc=$?
unset _fit_user _fit_url _fit_client _fit_pool _fit_password _fit_json_user _fit_json_password _fit_json_client \
  _fit_response _fit_curl_rc _fit_status _fit_body _fit_token _fit_expires _fit_type _fit_message _fit_challenge
unset -f _fit_main 2>/dev/null
# Sourced: `return` hands the status to the caller's shell. Run as a program (not sourced),
# `return` is not allowed at top level, so fall back to the exit status of the program itself.
eval "unset _fit_rc; return $_fit_rc 2>/dev/null || exit $_fit_rc"

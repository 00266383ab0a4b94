/**
 * The plain HTML pages of the OIDC flow: sign-in, new password, signed out, error. No JavaScript;
 * every input has a label; errors are announced (`role="alert"`) and tied to the inputs.
 */
import type { FastifyReply } from 'fastify';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #555;border-radius:4px}
input:focus,button:focus{outline:3px solid #1a5fb4;outline-offset:2px}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;background:#1a5fb4;color:#fff;border:0;border-radius:4px}
.error{color:#a51d2d;border-left:4px solid #a51d2d;padding-left:.5rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} – ianode</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>`;
}

const hidden = (fields: Record<string, string | undefined>): string =>
  Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v ?? '')}">`)
    .join('\n');

const alert = (error: string | undefined) =>
  error ? `<p class="error" role="alert" id="form-error">${escapeHtml(error)}</p>` : '';
const describedBy = (error: string | undefined) => (error ? ' aria-describedby="form-error"' : '');

export function signInPage(o: { clientName: string; params: Record<string, string | undefined>; username?: string; error?: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(o.clientName)}</strong></p>
${alert(o.error)}
<form method="post" action="authorize">
${hidden(o.params)}
<label for="username">User name or e-mail address</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(o.username ?? '')}"${describedBy(o.error)}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${describedBy(o.error)}>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function newPasswordPage(o: { params: Record<string, string | undefined>; username: string; session: string; error?: string }): string {
  return page(
    'Set a new password',
    `<h1>Set a new password</h1>
<p>Your password was set by an administrator. Choose your own to continue.</p>
${alert(o.error)}
<form method="post" action="authorize">
${hidden({ ...o.params, username: o.username, session: o.session })}
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required${describedBy(o.error)}>
<button type="submit">Set password and continue</button>
</form>`,
  );
}

export const messagePage = (title: string, message: string): string =>
  page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);

/** Sends a page with headers that keep it out of frames and caches. */
export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
    .send(html);
}

// The browsable page's forms: POST goes as an ordinary form; PUT, PATCH, DELETE
// and the raw JSON form go through fetch, with the session's CSRF token in
// X-CSRFToken, and the answer (a page) replaces this one, as in Django REST
// Framework's browsable API. Served by the app itself: no external request.
'use strict';

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('api-form')) return;
  const method = (event.submitter && event.submitter.dataset.method) || form.dataset.method || 'POST';
  const raw = form.hasAttribute('data-raw');
  if (method === 'POST' && !raw) return;
  event.preventDefault();
  const token = form.querySelector('input[name="csrfmiddlewaretoken"]');
  const headers = { Accept: 'text/html', 'X-CSRFToken': token ? token.value : '' };
  // The version of the row this page showed: a row changed since is not overwritten (412).
  if (form.dataset.ifMatch && method !== 'POST') headers['If-Match'] = form.dataset.ifMatch;
  let body;
  if (raw) {
    headers['Content-Type'] = 'application/json';
    body = form.querySelector('textarea').value;
  } else if (method !== 'DELETE') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (name !== 'csrfmiddlewaretoken') body.append(name, String(value));
    }
  }
  const response = await fetch(form.action, { method, headers, body, credentials: 'same-origin' });
  if (response.status === 204) {
    // Nothing to show: the row is gone, back to its list.
    window.location.assign(new URL('..', form.action).href);
    return;
  }
  const page = await response.text();
  if (!(response.headers.get('Content-Type') || '').startsWith('text/html')) {
    // Not a page (a JSON answer): shown as text, never parsed as markup.
    const pre = document.createElement('pre');
    pre.textContent = page;
    document.body.replaceChildren(pre);
    return;
  }
  document.open();
  document.write(page);
  document.close();
});

// The filter form sends only the filters that have a value: an empty one is
// no filter on the root site, but NULL for a nullable filter under /api.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('query-form')) return;
  for (const field of form.querySelectorAll('input, select')) {
    if (field.name && field.value === '') field.disabled = true;
  }
});

// Coming back to the page (the browser's back button), its filters are whole again.
window.addEventListener('pageshow', () => {
  for (const field of document.querySelectorAll('.query-form [disabled]')) field.disabled = false;
});

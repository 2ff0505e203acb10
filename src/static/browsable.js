// The browsable page's forms go through fetch, with the session's CSRF token
// in X-CSRFToken, and the answer (a page) replaces this one, as in Django REST
// Framework's browsable API. Served by the app itself: no external request.
'use strict';

/**
 * Under /api a refused save is Laravel's JSON 422 whatever was asked for
 * (`{"message": …, "errors": {"<field>": ["…"]}}`): its messages go beside
 * the fields of the form that sent it, which keeps what was typed, and the
 * answer is shown in the page's response panel. False when `text` is not one.
 */
function showRefusal(form, method, response, text) {
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    return false;
  }
  if (response.status !== 422 || !answer || typeof answer.errors !== 'object' || answer.errors === null) return false;
  for (const old of form.querySelectorAll('.field-error, .form-errors')) old.remove();
  const unplaced = [];
  let first = null;
  for (const [name, messages] of Object.entries(answer.errors)) {
    // Not a checkbox's hidden `false` (see the template): the box itself.
    const field = form.hasAttribute('data-raw') ? null : form.querySelector(`[name="${CSS.escape(name)}"]:not([type=hidden])`);
    for (const message of [].concat(messages)) {
      if (!field) {
        unplaced.push(`${name}: ${message}`);
        continue;
      }
      const note = document.createElement('span');
      note.className = 'field-error';
      note.textContent = String(message);
      field.parentElement.append(note);
      first = first || field;
    }
  }
  if (unplaced.length > 0) {
    const list = document.createElement('ul');
    list.className = 'form-errors';
    list.setAttribute('role', 'alert');
    for (const message of unplaced) list.appendChild(document.createElement('li')).textContent = message;
    form.prepend(list);
  }
  showAnswer(method, form.action, statusPanel(response, JSON.stringify(answer, null, 2)));
  (first || form.querySelector('textarea, input:not([type=hidden])'))?.focus();
  return true;
}

/** A response panel as the page's own: the status line in bold, then `text` (as text, never markup). */
function statusPanel(response, text) {
  const panel = document.createElement('pre');
  panel.appendChild(document.createElement('b')).textContent = `HTTP ${response.status} ${response.statusText}`;
  panel.append(`\n\n${text}`);
  return panel;
}

/** This page's request line and response panel show `method` to `action`, answered with `panel`. */
function showAnswer(method, action, panel) {
  const request = document.querySelector('.request');
  if (request) request.textContent = `${method} ${new URL(action).pathname}`;
  document.querySelector('.response pre')?.replaceWith(panel);
}

/**
 * A save refused because the row changed since this page showed it (412): the
 * answer's page would replace this one and lose what was typed, so only its
 * response panel is shown here; the forms stay as they were (and still send
 * the version they were read at, so a second try is refused too until the
 * page is read again).
 */
function showConflict(form, method, response, page) {
  const answer = new DOMParser().parseFromString(page, 'text/html');
  const shown = answer.querySelector('.response pre');
  if (shown) return showAnswer(method, form.action, document.importNode(shown, true));
  // The token site's error page: its status and its message.
  showAnswer(method, form.action, statusPanel(response, [...answer.querySelectorAll('.message')].pop()?.textContent ?? ''));
}

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('api-form')) return;
  const method = (event.submitter && event.submitter.dataset.method) || form.dataset.method || 'POST';
  const raw = form.hasAttribute('data-raw');
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
  // One answer per click: a second click while the first is on its way would send the change twice.
  const buttons = [...form.querySelectorAll('button')].filter((button) => !button.disabled);
  buttons.forEach((button) => (button.disabled = true));
  let response;
  let page;
  try {
    response = await fetch(form.action, { method, headers, body, credentials: 'same-origin' });
    page = await response.text();
  } catch {
    const panel = document.createElement('pre');
    panel.textContent = document.querySelector('.response')?.dataset.noAnswer ?? '';
    showAnswer(method, form.action, panel);
    return;
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
  if (response.status === 204) {
    // Nothing to show: the row is gone, back to its list.
    window.location.assign(new URL('..', form.action).href);
    return;
  }
  if (!(response.headers.get('Content-Type') || '').startsWith('text/html')) {
    if (showRefusal(form, method, response, page)) return;
    // Not a page (a JSON answer): shown as text, never parsed as markup.
    const pre = document.createElement('pre');
    pre.textContent = page;
    document.body.replaceChildren(pre);
    return;
  }
  if (response.status === 412) return showConflict(form, method, response, page);
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

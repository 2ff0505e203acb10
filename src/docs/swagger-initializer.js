// Swagger UI's settings for /docs: a file of its own, since the page's policy runs no inline script.
(function () {
  'use strict';

  var root = document.getElementById('swagger-ui');

  /**
   * A request that brings its own credentials (Basic or a bearer token from the
   * Authorize dialog) leaves the browser's cookies at home: the server would
   * otherwise take the session cookie first, and its CSRF check refuses unsafe
   * methods without the page's token.
   */
  function ownCredentialsOnly(request) {
    var headers = request.headers || {};
    var authorized = Object.keys(headers).some(function (name) {
      return name.toLowerCase() === 'authorization' && headers[name];
    });
    if (authorized) request.credentials = 'omit';
    return request;
  }

  var descriptionUrl = new URL(root.getAttribute('data-url'), document.baseURI).href;

  /**
   * The description lists each path's other spelling (with or without the
   * trailing slash) as a `$ref` to the first, for validators; the page shows
   * each operation once, so it leaves those out.
   */
  function withoutAliases(response) {
    if (response.url !== descriptionUrl || typeof response.text !== 'string') return response;
    var description;
    try {
      description = JSON.parse(response.text);
    } catch (error) {
      return response;
    }
    var paths = description.paths || {};
    Object.keys(paths).forEach(function (path) {
      var ref = paths[path] && paths[path].$ref;
      if (typeof ref === 'string' && ref.indexOf('#/paths/') === 0) delete paths[path];
    });
    response.text = JSON.stringify(description);
    response.body = description;
    return response;
  }

  SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    deepLinking: true,
    // The default would send the document to validator.swagger.io for a badge.
    validatorUrl: null,
    // Without the standalone preset's top bar, whose box would load any other document's URL.
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    requestInterceptor: ownCredentialsOnly,
    responseInterceptor: withoutAliases,
  });
})();

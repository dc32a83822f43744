/* The linkaudit report's table of all URLs, drawn from the JSON in
   #linkaudit-data a page at a time: filter, search, sort, page.  Without
   this script the table shows the first page the HTML carries. */
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("linkaudit-data").textContent);
  const rows = data.urls;
  const size = data.page_size;
  const rank = Object.fromEntries(data.severity.map((o, i) => [o, i]));
  const body = $("url-rows");
  const web = /^https?:\/\//i;
  const state = { outcome: "", near: "", onlyNew: false, q: "", key: "outcome", dir: 1, page: 0 };
  let view = rows;

  // What is not printable in a text (control characters, bidi overrides and
  // other invisible format characters, separators, lone surrogates) is
  // written as an escape, \x1b or \u202e, as the static rows have it
  // (common.shown, Python's repr): our own words are all printable.
  const hidden = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|[^\P{Zs} ]/gu;
  const named = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
  function shown(text) {
    return String(text).replace(hidden, (c) => {
      if (named[c]) return named[c];
      const cp = c.codePointAt(0);
      const [prefix, width] = cp < 0x100 ? ["\\x", 2] : cp < 0x10000 ? ["\\u", 4] : ["\\U", 8];
      return prefix + cp.toString(16).padStart(width, "0");
    });
  }

  // Every text goes in as text (textContent), never as markup: URLs and
  // errors come from the web.  Only http(s) URLs become links.
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = shown(text);
    return node;
  }

  // A build's URL comes named (its file's path) with its link (the file,
  // relative to this page, or its deployed URL): [name, href], href null
  // for a file that is not there (html/page.py, table_row).
  function link(url, named) {
    if (named && named.length) {
      if (!named[1]) return el("span", "url", named[0]);
      const a = el("a", "url", named[0]);
      a.setAttribute("href", named[1]);
      return a;
    }
    if (!web.test(url)) return el("span", "url", url);
    const a = el("a", "url", url);
    a.href = url;
    return a;
  }

  // The same row as the static HTML (html.py, _row_html).
  function drawRow(r) {
    const tr = el("tr");
    const near = r.near ? "near" : "far";
    tr.dataset.url = shown(r.url);
    tr.dataset.outcome = r.outcome;
    tr.dataset.near = near;
    if (r.new) tr.dataset.new = "";
    const u = el("td", "u");
    u.append(link(r.url, r.name === undefined ? null : [r.name, r.href]));
    if (r.new) u.append(" ", el("span", "badge b-new", "new"));
    if (r.soft_404) u.append(" ", el("span", "badge b-warn", "soft 404"));
    const outcome = el("td");
    outcome.append(el("span", "badge o-" + r.outcome, r.outcome));
    const detail = el("td", "detail");
    const parts = [];
    if (r.error) parts.push(document.createTextNode(shown(r.error)));
    if (r.location) {
      const to = el("span", "", "→ ");
      to.append(link(r.location));
      parts.push(to);
    }
    if (r.warning) parts.push(el("span", "warn", r.warning));
    if (r.from) {
      const from = el("span", "from", "from ");
      from.append(link(r.from[0], r.from.slice(2)));
      if (r.from[1]) from.append(" line " + r.from[1]);
      const more = (r.referrer_count || 1) - 1;
      if (more > 0) from.append(" and " + more + " more");
      parts.push(from);
    }
    parts.forEach((part, i) => {
      if (i) detail.append(" ");
      detail.append(part);
    });
    tr.append(
      u,
      outcome,
      el("td", "num", r.status),
      detail,
      el("td", "num", r.depth),
      el("td", "num", r.referrer_count),
      el("td", "", near),
    );
    return tr;
  }

  const sortKeys = {
    url: (r) => r.url,
    outcome: (r) => rank[r.outcome],
    status: (r) => (r.status === undefined ? null : r.status),
    depth: (r) => r.depth,
    referrer_count: (r) => r.referrer_count,
    near: (r) => (r.near ? 0 : 1),
  };

  // Rows without a value (no status) last either way; ties by URL.
  function sortRows() {
    const key = sortKeys[state.key];
    const dir = state.dir;
    rows.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * dir;
      }
      return a.url < b.url ? -1 : a.url > b.url ? 1 : 0;
    });
  }

  function lower(r) {
    if (r.lc === undefined) r.lc = r.url.toLowerCase();
    return r.lc;
  }

  function refresh() {
    const q = state.q.trim().toLowerCase();
    view = rows.filter(
      (r) =>
        (!state.outcome || r.outcome === state.outcome) &&
        (!state.near || (state.near === "near") === Boolean(r.near)) &&
        (!state.onlyNew || r.new) &&
        (!q || lower(r).includes(q)),
    );
    state.page = 0;
    draw();
  }

  function draw() {
    const pages = Math.max(1, Math.ceil(view.length / size));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const start = state.page * size;
    const part = view.slice(start, start + size);
    const fragment = document.createDocumentFragment();
    part.forEach((r) => fragment.append(drawRow(r)));
    if (!part.length) {
      const none = el("td", "muted", "No URL matches.");
      none.colSpan = 7;
      const tr = el("tr", "empty");
      tr.append(none);
      fragment.append(tr);
    }
    body.replaceChildren(fragment);
    $("range").textContent = part.length ? start + 1 + "–" + (start + part.length) : "0";
    $("shown").textContent = view.length;
    $("page").textContent = "Page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
    for (const th of document.querySelectorAll("#url-table th[data-sort]")) {
      const on = th.dataset.sort === state.key;
      th.setAttribute("aria-sort", on ? (state.dir > 0 ? "ascending" : "descending") : "none");
    }
  }

  for (const th of document.querySelectorAll("#url-table th[data-sort]")) {
    const button = el("button", "sort", th.textContent);
    button.type = "button";
    button.addEventListener("click", () => {
      if (state.key === th.dataset.sort) state.dir = -state.dir;
      else [state.key, state.dir] = [th.dataset.sort, 1];
      sortRows();
      refresh();
    });
    th.replaceChildren(button);
  }

  const outcome = $("filter-outcome");
  const near = $("filter-near");
  const onlyNew = $("filter-new");
  const search = $("search");
  function read() {
    // what the controls hold: a reload may have restored them
    state.outcome = outcome.value;
    state.near = near.value;
    state.onlyNew = onlyNew.checked;
    state.q = search.value;
    refresh();
  }
  [outcome, near, onlyNew].forEach((c) => c.addEventListener("change", read));
  search.addEventListener("input", read);
  $("prev").addEventListener("click", () => {
    state.page -= 1;
    draw();
  });
  $("next").addEventListener("click", () => {
    state.page += 1;
    draw();
  });
  // the counts at the top filter the table (their link jumps to it)
  for (const a of document.querySelectorAll("a[data-filter]")) {
    a.addEventListener("click", () => {
      outcome.value = a.dataset.filter;
      read();
    });
  }
  document.querySelector("#urls .controls").hidden = false;
  document.querySelector("#urls .pager").hidden = false;
  sortRows();
  read();
  document.documentElement.dataset.table = "ready";
  performance.mark("linkaudit-table");
})();

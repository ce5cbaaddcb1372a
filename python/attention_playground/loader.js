// Runs in each notebook output of attention_playground (a classic script: Jupyter Notebook re-creates scripts outside
// the output, JupyterLab and VS Code inside it). It finds its output by id, loads the widget ONCE per page (the first
// output's inline copy: gunzip, import from a blob: URL, hand it the engine's bytes with setEngineWasm), then adds
// an <attention-playground> whose attributes come from the output's JSON (set as attributes: text, never HTML).
// The file of show()/show_file() becomes a blob: URL in the element's src. Python appends ("<output id>").
;(function (id) {
  'use strict'
  var G = (window.__attentionPlaygroundNotebook = window.__attentionPlaygroundNotebook || {})

  function findRoot() {
    var all = document.querySelectorAll('div.attention-playground-output')
    for (var i = 0; i < all.length; i++) {
      if (all[i].id === id && !all[i].hasAttribute('data-ap-started')) return all[i]
    }
    return null
  }

  function fromBase64(text) {
    var s = atob(text.replace(/\s+/g, ''))
    var b = new Uint8Array(s.length)
    for (var i = 0; i < s.length; i++) b[i] = s.charCodeAt(i)
    return b
  }

  function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
    return new Response(stream).arrayBuffer()
  }

  function inline(root, cls) {
    var el = root.querySelector('script.' + cls)
    if (!el) throw new Error('this output has no ' + cls)
    return gunzip(fromBase64(el.textContent))
  }

  // The widget module and its engine, once per page: later outputs (and re-run cells) reuse them.
  function widget(root) {
    if (!G.widget) {
      G.widget = inline(root, 'ap-widget-js')
        .then(function (js) {
          var url = URL.createObjectURL(new Blob([js], { type: 'text/javascript' }))
          return import(url)
        })
        .then(function (mod) {
          return inline(root, 'ap-engine-wasm').then(function (wasm) {
            mod.setEngineWasm(wasm)
            return mod
          })
        })
      G.widget.catch(function () {
        G.widget = null // the next output may try again
      })
    }
    return G.widget
  }

  function start(root) {
    root.setAttribute('data-ap-started', '')
    var note = root.querySelector('.ap-fallback')
    var cfg = JSON.parse(root.querySelector('script.ap-config').textContent)
    widget(root).then(
      function () {
        var el = document.createElement('attention-playground')
        Object.keys(cfg.attributes).forEach(function (k) {
          el.setAttribute(k, cfg.attributes[k])
        })
        if (cfg.file) {
          var blob = new Blob([fromBase64(cfg.file)], { type: 'application/octet-stream' })
          el.setAttribute('src', URL.createObjectURL(blob))
        }
        if (note) note.remove()
        root.appendChild(el)
      },
      function (e) {
        if (note) note.textContent = 'Attention Playground could not load / 无法加载: ' + (e && e.message ? e.message : e)
      },
    )
  }

  // JupyterLab may run the script before its output is in the document: look again for a few seconds.
  var tries = 0
  ;(function look() {
    var root = findRoot()
    if (root) start(root)
    else if (tries++ < 100) setTimeout(look, 50)
  })()
})

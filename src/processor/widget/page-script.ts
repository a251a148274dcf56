/**
 * The payment page's only script, inline: the countdown to the deadline and the live status from the
 * page's event stream (`<page>/events`). A page whose payment token ran out before the deadline reloads
 * for a fresh one (a page load issues it), and so does a page whose payment a reorg took back, so its QR
 * code is payable again (a refund's page names its awaiting status in data-awaiting). A load that showed no
 * link because another screen's is still fresh loads again once that interval is over. The paying settlement
 * links to the explorer. A live stream the widget refuses (its caps) is tried again after 30 s. Written as
 * plain ES2017 for any phone browser.
 */
export const pageScript = `
(function () {
  var root = document.getElementById('payment');
  var status = document.getElementById('status');
  var countdown = document.getElementById('countdown');
  var settlement = document.getElementById('settlement');
  var explorer = root.getAttribute('data-explorer');
  var deadline = Date.parse(root.getAttribute('data-deadline'));
  var tokenExpires = Date.parse(root.getAttribute('data-token-expires') || '');
  var awaitingStatus = root.getAttribute('data-awaiting') || 'awaiting-payment';
  var awaiting = function () { return root.getAttribute('data-status') === awaitingStatus; };
  var showSettlement = function (txHash) {
    settlement.textContent = txHash ? '' : 'none yet';
    if (!txHash) return;
    var link = document.createElement('a');
    link.href = explorer + '/#/tx/' + txHash;
    link.textContent = txHash;
    settlement.appendChild(link);
  };
  var tick = function () {
    var left = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
    countdown.textContent = awaiting() ? Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0') : '—';
    if (awaiting() && tokenExpires < deadline && Date.now() >= tokenExpires) location.reload();
  };
  tick();
  setInterval(tick, 1000);
  var shown = document.getElementById('link-shown');
  if (shown) setTimeout(function () { location.reload(); }, Number(shown.getAttribute('data-retry-seconds')) * 1000 + 500);
  var follow = function () {
    var events = new EventSource(location.pathname.replace(/\\/+$/, '') + '/events');
    events.addEventListener('status', function (event) {
      var next = JSON.parse(event.data);
      if (!awaiting() && next.status === awaitingStatus) return location.reload();
      root.setAttribute('data-status', next.status);
      status.setAttribute('data-status', next.status);
      status.textContent = next.label;
      showSettlement(next.txHash);
      tick();
      if (next.status === 'expired' || next.status === 'canceled') events.close();
    });
    // A stream refused at the widget's caps (429, 503) is not retried by the browser: again in 30 s.
    events.addEventListener('error', function () {
      if (events.readyState === 2) setTimeout(follow, 30000);
    });
  };
  follow();
})();
`

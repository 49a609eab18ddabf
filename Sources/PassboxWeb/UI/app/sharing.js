// Family & Team (issue 32): this account's security code, the families and teams it is in, joining with an
// invitation, and one organisation's page (members, confirmation by security code, invitations, shared
// vaults and who may use them, groups, recovery, leaving). The agent verifies and signs; the page only shows
// what it answers and asks for the master password where a change is signed.
import { call, Secret, SessionLost, AgentGone } from './api.js';
import { t, errorText, formatDate, ready } from './i18n.js';
import { h, icon, button, clear, toast, dialog } from './dom.js';
import { report, loadVaults, refreshList } from './app.js';

const roles = ['owner', 'admin', 'member', 'guest'];
let pane = null;

function field(id, labelKey, attrs = {}) {
  return [h('label', { for: id }, t(labelKey)), h('input', { id, type: 'text', ...attrs })];
}

function choice(id, labelKey, values, word, chosen) {
  return [h('label', { for: id }, t(labelKey)),
    h('select', { id }, ...values.map((v) => h('option', { value: v, selected: v === chosen }, word(v))))];
}

const roleName = (r) => t('org.role.' + r);
const accessName = (a) => t('org.access.' + a);

// A 60-digit code as twelve groups in a list: large, and read group by group by a screen reader.
function codeBlock(code, label, id) {
  const copy = button([icon('copy'), t('ui.org.copyCode')], async () => {
    try { await navigator.clipboard.writeText(code); toast(t('ui.org.codeCopied')); } catch (e) { toast(code, null, 12); }
  }, 'ghost');
  return h('div', { class: 'seccode-box' },
    h('ol', { class: 'seccode', 'aria-label': label, id }, ...code.split(' ').map((g) => h('li', {}, g))), copy);
}

// A form's failure beside it; a lost session or a gone agent changes the screen.
function failed(error, place) {
  if (error instanceof SessionLost || error instanceof AgentGone) return report(error);
  place.textContent = errorText(error);
  place.focus();
}

// Asks for the master password before a change that is signed (and says what the change does).
async function withPassword(title, text, extra) {
  const input = h('input', { id: 'org-password', type: 'password', autocomplete: 'new-password' });
  const body = h('div', {}, text ? h('p', {}, text) : null, extra || null, h('label', { for: 'org-password' }, t('ui.org.password')), input,
    h('p', { class: 'hint' }, t('ui.org.password.why')));
  const go = dialog(title, body, [{ label: t('ui.cancel'), value: false }, { label: t('ui.org.go'), value: true, primary: true }]);
  input.focus();
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); input.closest('dialog').querySelector('.button.primary').click(); } });
  const yes = await go;
  const value = input.value;
  input.value = '';
  if (yes && !value) toast(t('ui.account.typeMaster'));
  return yes && value ? new Secret(value) : null;
}

// One org-change; the organisation's page again with what it answers (or the overview after leaving).
async function change(body, done, place) {
  try {
    const reply = (await call('org-change', body)).body;
    if (done) toast(done, null, 8);
    if (reply.org) showOrg(reply.org.orgID, reply); else await showSharing(clear(pane));
    syncSoon();
    return reply;
  } catch (e) {
    if (place) failed(e, place); else report(e);
    return null;
  }
}

// A change to who may use which vault shows in the vault list after a sync: one now, in the background.
function syncSoon() {
  call('sync', { takeNotices: false }).then(() => { loadVaults(); refreshList(); }, () => {});
}

async function signed(title, text, body, done, extra) {
  const password = await withPassword(title, text, extra ? extra.node : null);
  if (!password) return null;
  return change({ ...body, ...(extra ? extra.values() : {}), password }, done);
}

export async function showSharing(target) {
  pane = target;
  await ready();
  const reply = (await call('sharing')).body;
  pane.append(h('h1', {}, t('ui.org.title')), h('p', { class: 'hint' }, t('ui.org.intro')));
  if (reply.warnings.length) {
    pane.append(h('section', { id: 'sharing-warnings', 'aria-labelledby': 'warnings-h' },
      h('h2', { id: 'warnings-h' }, t('ui.org.warnings', { count: reply.warnings.length })),
      ...reply.warnings.map((w) => h('div', { class: 'notice', role: 'note' }, h('p', {}, t('sharing.warning.' + w.kind, { subject: w.subject })),
        w.kind === 'keyChanged' ? compareNewKeys(w.subject) : null,
        h('details', {}, h('summary', {}, t('ui.org.detail')), h('p', { class: 'hint' }, `${w.detail} (${formatDate(w.seen)})`))))));
  }
  // The own code, to read to those one shares with; "Check with the server" compares the published keys.
  const checked = h('p', { role: 'status' });
  pane.append(h('section', { 'aria-labelledby': 'own-h' }, h('h2', { id: 'own-h' }, t('ui.org.ownCode')),
    h('p', { class: 'hint' }, t('ui.org.ownCode.hint', { email: reply.own.email })), codeBlock(reply.own.securityCode, t('ui.org.ownCode'), 'own-code'),
    button(t('ui.org.checkServer'), async () => {
      try {
        const own = (await call('security-code', { check: true, acceptNew: false })).body.own;
        checked.className = own.serverMatches ? 'hint' : 'error';
        checked.textContent = own.serverMatches ? t('sharing.serverMatches') : t('ui.org.serverDiffers');
      } catch (e) { failed(e, checked); }
    }, 'ghost', { id: 'check-server' }), checked));
  // Waiting, removed or refused: the server serves no list to open (or none that verifies), so the state is said here.
  const orgs = h('ul', { class: 'org-list', id: 'org-list' }, ...reply.organisations.map((o) => h('li', {}, o.status === 'member'
    ? button([h('strong', {}, o.name), ' ', h('span', { class: 'hint' }, orgLine(o))], () => showOrg(o.orgID), 'ghost org-open')
    : [h('strong', {}, o.name), ' ', h('span', { class: 'hint' }, orgLine(o)), h('p', { class: 'hint' }, t('ui.org.status.' + o.status + '.long'))])));
  pane.append(h('section', { 'aria-labelledby': 'orgs-h' }, h('h2', { id: 'orgs-h' }, t('ui.org.yours')),
    reply.organisations.length ? orgs : h('p', { class: 'hint' }, t('ui.org.none'))));
  pane.append(createForm(), joinForm());
}

// A contact whose keys changed (SHR-18): the pinned code and the new one side by side; the new keys become
// the pin only when the user says the new code matches what the person reads out.
function compareNewKeys(email) {
  const box = h('div', { 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert', tabindex: '-1' });
  box.append(button(t('ui.org.keyChanged.compare'), async () => {
    try {
      const c = (await call('security-code', { email, check: false, acceptNew: false })).body.contact;
      clear(box).append(h('p', {}, t('ui.org.keyChanged.old')), codeBlock(c.securityCode, t('ui.org.keyChanged.old')));
      if (!c.newSecurityCode) { box.append(h('p', {}, t('ui.org.keyChanged.none'))); return; }
      box.append(h('p', {}, t('ui.org.keyChanged.new', { email })), codeBlock(c.newSecurityCode, t('ui.org.keyChanged.new', { email }), 'new-code'),
        h('p', { class: 'hint' }, t('ui.org.keyChanged.hint', { email })), error,
        button(t('ui.org.keyChanged.accept'), async () => {
          try {
            await call('security-code', { email, check: false, acceptNew: true });
            toast(t('ui.org.keyChanged.accepted', { email }), null, 8);
            await showSharing(clear(pane));
          } catch (e) { failed(e, error); }
        }, 'primary', { id: 'accept-new' }));
    } catch (e) { failed(e, error); box.append(error); }
  }, 'ghost', { id: 'compare-new' }));
  return box;
}

function orgLine(o) {
  const status = o.status === 'member' ? roleName(o.role || 'member') : t('ui.org.status.' + o.status);
  return t('ui.org.line', { kind: t('org.kind.' + o.kind), count: o.members.length, status });
}

function createForm() {
  const error = h('p', { class: 'error', role: 'alert', tabindex: '-1' });
  const vault = field('org-vault', 'ui.org.vaultName', { maxlength: '100' });
  const form = h('form', { novalidate: true, id: 'org-create' },
    h('h2', {}, t('ui.org.create')),
    ...choice('org-kind', 'ui.org.kind', ['family', 'team'], (k) => t('org.kind.' + k), 'family'),
    ...field('org-name', 'ui.org.name', { maxlength: '100', required: true }), ...vault,
    h('p', { class: 'hint' }, t('ui.org.create.hint')), error, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.org.create.go'))));
  const kind = form.querySelector('#org-kind');
  kind.addEventListener('change', () => { for (const el of vault) el.hidden = kind.value !== 'family'; });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = form.querySelector('#org-name').value.trim();
    if (!name) { error.textContent = t('ui.account.fillIn', { field: t('ui.org.name') }); return; }
    const vaultName = kind.value === 'family' ? form.querySelector('#org-vault').value.trim() || undefined : undefined;
    await signed(t('ui.org.create'), null, { action: 'create', kind: kind.value, name, vaultName }, t('ui.org.created', { name }));
  });
  return form;
}

// Joining: the link (or a whole mail holding it), a preview of what it is, then Join.
function joinForm() {
  const error = h('p', { class: 'error', role: 'alert', tabindex: '-1' });
  const preview = h('div', { id: 'join-preview', 'aria-live': 'polite' });
  const text = h('textarea', { id: 'join-link', rows: '3', spellcheck: 'false' });
  const form = h('form', { novalidate: true, id: 'org-join' }, h('h2', {}, t('ui.org.join')),
    h('label', { for: 'join-link' }, t('ui.org.join.link')), text, h('p', { class: 'hint' }, t('ui.org.join.hint')), error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, t('ui.org.join.preview'))), preview);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    clear(preview);
    try {
      const p = (await call('org-accept', { text: text.value, preview: true })).body.preview;
      preview.append(h('div', { class: 'notice', role: 'note' },
        h('p', {}, h('strong', {}, t('ui.org.preview.' + p.kind, { name: p.name, owners: p.owners.join(', '), count: p.members }))),
        h('p', {}, t('ui.org.preview.as', { email: p.email, role: roleName(p.role), can: t('org.role.' + p.role + '.can'), date: formatDate(p.expires) })),
        button(t('ui.org.join.go'), async () => {
          try {
            const joined = (await call('org-accept', { text: text.value, preview: false })).body;
            text.value = '';
            syncSoon();
            clear(preview).append(h('p', { role: 'status' }, t('ui.org.joined', { name: joined.preview.name })),
              codeBlock(joined.ownCode, t('ui.org.ownCode'), 'joined-code'));
          } catch (e) { failed(e, error); }
        }, 'primary', { id: 'join-go' })));
    } catch (e) { failed(e, error); }
  });
  return form;
}

// One organisation: its page drawn from `org-show` (or the answer of a change just made).
async function showOrg(id, known) {
  const reply = known || (await call('org-show', { org: id }).catch((e) => { report(e); return null; }))?.body;
  if (!reply) return;
  const o = reply.org;
  const me = o.members.find((m) => m.trust === 'self');
  const manager = o.status === 'member' && (o.role === 'owner' || o.role === 'admin');
  const base = { org: o.orgID };
  clear(pane).append(
    button(t('ui.org.back'), () => showSharing(clear(pane)).catch(report), 'ghost', { id: 'org-back' }),
    h('h1', {}, o.name),
    h('p', { class: 'hint' }, t('ui.org.header', { kind: t('org.kind.' + o.kind), role: o.role ? roleName(o.role) : t('ui.org.status.' + o.status), version: o.version, epoch: o.epoch })));
  if (o.status !== 'member') pane.append(h('p', { class: 'notice', role: 'note' }, t('ui.org.status.' + o.status + '.long')));
  if (!o.trusted && o.code) pane.append(trustForm(o));
  pane.append(membersSection(o, manager, base));
  if (o.waiting.length) pane.append(waitingSection(o, base));
  if (o.recoveries.length && o.role === 'owner') pane.append(recoverySection(o, base));
  pane.append(vaultsSection(o, reply.vaults, manager, base));
  if (manager) pane.append(invitationsSection(o, base, reply.invitation), groupsSection(o, base));
  const own = h('section', { 'aria-labelledby': 'you-h' }, h('h2', { id: 'you-h' }, t('ui.org.you')));
  if (o.kind === 'family' && o.status === 'member') {
    own.append(h('p', {}, t(o.recoveryAllowed ? 'ui.org.recovery.on' : 'ui.org.recovery.off')),
      button(t(o.recoveryAllowed ? 'ui.org.recovery.stop' : 'ui.org.recovery.allow'), () => (o.recoveryAllowed
        ? change({ ...base, action: 'recovery', allow: false })
        : signed(t('ui.org.recovery.allow'), t('ui.org.recovery.explain'), { ...base, action: 'recovery', allow: true })), '', { id: 'org-recovery' }));
  }
  if (o.role !== 'owner' && me) {
    own.append(h('p', { class: 'hint' }, t('ui.org.leave.hint')), button(t('ui.org.leave'), async () => {
      const sure = await dialog(t('ui.org.leave'), h('p', {}, t('ui.org.leave.ask', { name: o.name })), [{ label: t('ui.cancel'), value: false }, { label: t('ui.org.leave'), value: true, danger: true }]);
      if (sure) { await change({ ...base, action: 'leave' }, t('ui.org.left', { name: o.name })); await refreshList(); }
    }, 'danger', { id: 'org-leave' }));
  }
  pane.append(own, h('section', { 'aria-labelledby': 'roles-h' }, h('h2', { id: 'roles-h' }, t('ui.org.roles')),
    h('dl', { class: 'roles' }, ...roles.flatMap((r) => [h('dt', {}, roleName(r)), h('dd', {}, t('org.role.' + r + '.can'))]))));
}

function trustForm(o) {
  const error = h('p', { class: 'error', role: 'alert', tabindex: '-1' });
  const form = h('form', { class: 'notice', novalidate: true }, h('p', {}, t('ui.org.untrusted', { code: o.code })),
    ...field('org-trust-code', 'ui.org.trust.code', { spellcheck: 'false' }), error, h('button', { type: 'submit', class: 'button' }, t('ui.org.trust')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await change({ org: o.orgID, action: 'trust', code: form.querySelector('#org-trust-code').value.trim() }, t('org.trusted', { name: o.name }), error);
  });
  return form;
}

function membersSection(o, manager, base) {
  const rows = o.members.map((m) => {
    const state = m.state === 'active' ? '' : t('ui.org.state.' + m.state);
    const trust = h('span', { class: m.trust === 'differs' ? 'error' : 'hint' }, t('org.trust.' + m.trust));
    const acts = h('td', {});
    const canManage = manager && m.trust !== 'self' && (o.role === 'owner' || m.role !== 'owner');
    if (canManage) {
      acts.append(
        button(t('ui.org.role.change'), () => {
          const pick = choice('org-new-role', 'ui.org.role', roles.filter((r) => o.role === 'owner' || r !== 'owner'), roleName, m.role);
          return signed(t('ui.org.role.change'), m.email, { ...base, action: 'role', email: m.email }, t('ui.org.done'),
            { node: h('div', {}, ...pick), values: () => ({ role: pick[1].value }) });
        }, 'ghost'),
        button(t(m.state === 'paused' ? 'ui.org.resume' : 'ui.org.pause'), () => signed(t(m.state === 'paused' ? 'ui.org.resume' : 'ui.org.pause'), m.email,
          { ...base, action: m.state === 'paused' ? 'resume' : 'pause', email: m.email }, t('ui.org.done')), 'ghost'),
        button(t('ui.org.remove'), () => signed(t('ui.org.remove'), t('ui.org.remove.ask', { email: m.email, name: o.name }),
          { ...base, action: 'remove', email: m.email }, t('ui.org.removed', { email: m.email })), 'danger'));
    }
    return h('tr', {}, h('td', {}, m.email), h('td', {}, roleName(m.role), state ? ' · ' + state : ''), h('td', {}, trust), acts);
  });
  return h('section', { 'aria-labelledby': 'members-h' }, h('h2', { id: 'members-h' }, t('ui.org.members', { count: o.members.length })),
    h('table', { class: 'keys', id: 'org-members' }, h('thead', {}, h('tr', {}, ...['ui.org.col.email', 'ui.org.col.role', 'ui.org.col.trust', 'ui.org.col.actions'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', {}, ...rows)));
}

// Confirming a member: their code large, then one of three answers (SHR-13, SHR-14).
function waitingSection(o, base) {
  return h('section', { 'aria-labelledby': 'waiting-h', id: 'org-waiting' }, h('h2', { id: 'waiting-h' }, t('ui.org.waiting')),
    h('p', { class: 'hint' }, t('ui.org.waiting.hint')),
    ...o.waiting.map((w) => h('div', { class: 'waiting' },
      h('h3', {}, t('ui.org.waiting.who', { email: w.email, role: roleName(w.role) })),
      codeBlock(w.securityCode, t('ui.org.theirCode', { email: w.email })),
      h('div', { class: 'actions' },
        button(t('ui.org.codesMatch'), () => signed(t('ui.org.codesMatch'), w.email, { ...base, action: 'confirm', email: w.email, compared: true },
          t('ui.org.confirmed', { email: w.email, name: o.name })), 'primary'),
        button(t('ui.org.withoutComparing'), () => signed(t('ui.org.withoutComparing'), t('ui.org.withoutComparing.ask', { email: w.email }),
          { ...base, action: 'confirm', email: w.email, compared: false }, t('ui.org.confirmed', { email: w.email, name: o.name })), ''),
        button(t('ui.org.codesDiffer'), () => dialog(t('ui.org.codesDiffer'), h('p', {}, t('ui.org.codesDiffer.text', { email: w.email })),
          [{ label: t('ui.close'), value: true }]), 'danger')))));
}

// A member who lost everything asks to be let back in: the owner types the code they read out.
function recoverySection(o, base) {
  return h('section', { 'aria-labelledby': 'recover-h' }, h('h2', { id: 'recover-h' }, t('ui.org.recoveries')),
    ...o.recoveries.map((r) => h('div', { class: 'waiting' }, h('h3', {}, r.email), h('p', { class: 'hint' }, t('ui.org.recoveries.hint', { email: r.email })),
      button(t('ui.org.recover'), () => {
        const code = field('org-recover-code', 'ui.org.recover.code', { spellcheck: 'false', inputmode: 'numeric' });
        return signed(t('ui.org.recover'), t('ui.org.recover.ask', { email: r.email }), { ...base, action: 'recover', email: r.email }, t('ui.org.done'),
          { node: h('div', {}, ...code), values: () => ({ code: code[1].value }) });
      }, 'primary'))));
}

function vaultsSection(o, vaults, manager, base) {
  const list = vaults.map((v) => {
    const name = v.name || t('ui.org.vault.noKey');
    return h('li', { class: 'org-vault' }, h('h3', {}, name),
      h('p', {}, t('ui.org.vault.access', { access: v.access ? accessName(v.access) : accessName('none'), epoch: v.epoch })),
      h('p', { class: 'hint' }, t('ui.org.vault.seenBy', { list: v.seenBy.map((s) => `${s.email} (${accessName(s.access)})`).join(', ') || '–' })),
      v.waitingForKey.length ? h('p', { class: 'hint' }, t('ui.org.vault.waitingForKey', { list: v.waitingForKey.join(', ') })) : null,
      v.rotationPending ? h('p', { class: 'notice', role: 'note' }, t('ui.org.vault.rotationPending')) : null);
  });
  const section = h('section', { 'aria-labelledby': 'vaults-h', id: 'org-vaults' }, h('h2', { id: 'vaults-h' }, t('ui.org.vaults')),
    vaults.length ? h('ul', { class: 'org-list' }, ...list) : h('p', { class: 'hint' }, t('ui.org.vaults.none')));
  if (!manager) return section;
  if (vaults.some((v) => v.rotationPending || v.waitingForKey.length)) {
    section.append(button(t('ui.org.renew'), () => signed(t('ui.org.renew'), t('ui.org.renew.explain'), { ...base, action: 'renew' }, t('ui.org.done')), 'primary', { id: 'org-renew' }));
  }
  // Access: a confirmed member or a group, and view, edit, manage or none (none rotates the keys).
  const named = vaults.filter((v) => v.name);
  const people = o.members.filter((m) => m.state === 'active').map((m) => m.email).concat(o.groups.map((g) => '@' + g.name));
  if (named.length && people.length) {
    const form = h('form', { novalidate: true, id: 'org-share' }, h('h3', {}, t('ui.org.share')),
      ...choice('share-vault', 'ui.org.share.vault', named.map((v) => v.vaultID), (id) => named.find((v) => v.vaultID === id).name),
      ...choice('share-who', 'ui.org.share.who', people, (p) => p),
      ...choice('share-access', 'ui.org.share.access', ['view', 'edit', 'manage', 'none'], (a) => t('ui.org.access.' + a), 'edit'),
      h('p', { class: 'hint' }, t('ui.org.share.hint')), h('button', { type: 'submit', class: 'button' }, t('ui.org.share.go')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const value = (id) => form.querySelector('#' + id).value;
      signed(t('ui.org.share'), null, { ...base, action: 'share', vault: value('share-vault'), email: value('share-who'), access: value('share-access') }, t('ui.org.done'));
    });
    section.append(form);
  }
  section.append(oneField('vault-new', 'ui.org.vault.new', 'ui.org.vault.create', (name) => signed(t('ui.org.vault.new'), null, { ...base, action: 'vault-create', name }, t('ui.org.done'))));
  return section;
}

// A form of one text field and its button.
function oneField(id, labelKey, goKey, run, attrs = {}) {
  const form = h('form', { novalidate: true, id: id + '-form' }, ...field(id, labelKey, { maxlength: '100', ...attrs }), h('button', { type: 'submit', class: 'button' }, t(goKey)));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = form.querySelector('#' + id).value.trim();
    if (value) run(value, form);
  });
  return form;
}

function invitationsSection(o, base, made) {
  const section = h('section', { 'aria-labelledby': 'inv-h', id: 'org-invitations' }, h('h2', { id: 'inv-h' }, t('ui.org.invitations')));
  if (made) {
    section.append(h('div', { class: 'notice', role: 'status' }, h('p', {}, t('ui.org.invited', { date: formatDate(made.expires) })),
      h('p', {}, h('code', { id: 'invite-link', class: 'wrap' }, made.link)),
      made.mailed === undefined || made.mailed === null ? null : h('p', {}, t(made.mailed ? 'ui.org.invited.mailed' : 'ui.org.invited.notMailed')),
      h('p', { class: 'hint' }, t('org.invited.trusted'))));
  }
  if (o.invitations.length) {
    section.append(h('ul', { class: 'org-list' }, ...o.invitations.map((i) => h('li', {}, `${i.email} · ${roleName(i.role)} · ${t('ui.org.until', { date: formatDate(i.expires) })} `,
      button(t('ui.org.revoke'), () => change({ ...base, action: 'revoke', invitation: i.id }, t('ui.org.done')), 'ghost')))));
  }
  const form = h('form', { novalidate: true, id: 'org-invite' }, h('h3', {}, t('ui.org.invite')),
    ...field('invite-email', 'ui.org.invite.email', { type: 'email' }),
    ...choice('invite-role', 'ui.org.role', roles.filter((r) => o.role === 'owner' || r !== 'owner'), roleName, 'member'),
    h('label', { class: 'check-label', for: 'invite-mail' }, h('input', { id: 'invite-mail', type: 'checkbox' }), t('ui.org.invite.mail')),
    h('button', { type: 'submit', class: 'button primary' }, t('ui.org.invite.go')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const email = form.querySelector('#invite-email').value.trim();
    if (email) change({ ...base, action: 'invite', email, role: form.querySelector('#invite-role').value, mail: form.querySelector('#invite-mail').checked });
  });
  section.append(form);
  return section;
}

function groupsSection(o, base) {
  const section = h('section', { 'aria-labelledby': 'groups-h', id: 'org-groups' }, h('h2', { id: 'groups-h' }, t('ui.org.groups')),
    h('p', { class: 'hint' }, t('ui.org.groups.hint')));
  const active = o.members.filter((m) => m.state === 'active').map((m) => m.email);
  for (const g of o.groups) {
    const outside = active.filter((e) => !g.members.includes(e));
    const pick = choice('group-add-' + g.id, 'ui.org.group.add', outside, (x) => x);
    section.append(h('div', { class: 'waiting' }, h('h3', {}, '@' + g.name),
      h('ul', {}, ...g.members.map((m) => h('li', {}, m, ' ', button(t('ui.org.group.remove'), () => signed(t('ui.org.group.remove'), m,
        { ...base, action: 'group-remove', group: g.id, email: m }, t('ui.org.done')), 'ghost')))),
      outside.length ? h('div', { class: 'row' }, ...pick, button(t('ui.org.group.addGo'), () => signed(t('ui.org.group.add'), null,
        { ...base, action: 'group-add', group: g.id, email: pick[1].value }, t('ui.org.done')), '')) : null,
      button(t('ui.org.group.delete'), () => signed(t('ui.org.group.delete'), t('ui.org.group.delete.ask', { name: g.name }),
        { ...base, action: 'group-delete', group: g.id }, t('ui.org.done')), 'danger')));
  }
  section.append(oneField('group-new', 'ui.org.group.new', 'ui.org.group.create', (name) => signed(t('ui.org.group.new'), null, { ...base, action: 'group-create', name }, t('ui.org.done'))));
  return section;
}

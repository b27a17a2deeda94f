#!/usr/bin/env node
// A lanmatch bot node in plain Node.js (>= 18), written from docs/protocol.md
// alone: no npm packages, a minimal msgpack codec, TLS 1.3 via node:tls.
//
//   node botnode.mjs HOST:PORT [ROOM] [NAME] [--timeout S] [--drop-every K] [--probe] [--key KEY] [--fp FP]
//
// It speaks protocol 3 over TLS 1.3 (section 1): the host's certificate is
// self-signed, so it is not checked against an authority; with --fp it must
// be the certificate of that fingerprint (lowercase hex SHA-256 of the DER,
// as the host's mDNS `fp=` says), else one line and exit 2. It waits up to
// 5 s for the host's `host` frame and
// sends nothing before it (no such frame: one line, exit 2), then says hello
// as a bot (with --key, with its profile's proof, registering it on first use), joins ROOM (or the first open room, else makes one
// and starts it), plays every decision its seat is offered by a simple rule
// (always one of the host's `legal` actions), answers heartbeats, resyncs on a
// seq gap and exits 0 with one "outcome ..." line when the game (or match)
// ends. A protocol error, a fatal `error`, a dropped connection or the timeout
// (default 120 s) exits non-zero with a message on stderr.
// Test hooks: --drop-every K pretends that a `view` arriving as the K-th,
// 2K-th, ... message got lost (never the final one), to exercise the seq gap ->
// resync -> snapshot path; --probe sends, before its first real act at a
// state_id > 0, one act with an old state_id and one action that is not in
// `legal`, and reports the two `rejected` codes. BOTNODE_DEBUG=1 logs each act
// to stderr.

import crypto from "node:crypto";
import tls from "node:tls";

// ---------------------------------------------------------------- msgpack --

class MsgpackError extends Error {}

const utf8 = new TextEncoder();
const utf8strict = new TextDecoder("utf-8", { fatal: true });

function encode(value) {
  const parts = [];
  const push = (...bytes) => parts.push(Buffer.from(bytes));
  const head = (small, smallMax, codes, n) => {
    // small: fix-type base byte (or null); codes: [8-bit, 16-bit, 32-bit] lengths
    if (small !== null && n <= smallMax) return push(small | n);
    if (codes[0] !== null && n < 0x100) return push(codes[0], n);
    if (n < 0x10000) return push(codes[1], n >> 8, n & 0xff);
    const b = Buffer.alloc(5);
    b[0] = codes[2];
    b.writeUInt32BE(n, 1);
    parts.push(b);
  };
  const walk = (v) => {
    if (v === null || v === undefined) return push(0xc0);
    if (v === false) return push(0xc2);
    if (v === true) return push(0xc3);
    if (typeof v === "number") {
      if (Number.isInteger(v)) {
        if (!Number.isSafeInteger(v)) throw new MsgpackError(`integer out of range: ${v}`);
        if (v >= 0 && v < 0x80) return push(v);
        if (v < 0 && v >= -32) return push(v & 0xff);
        const b = Buffer.alloc(9);
        if (v >= 0) {
          if (v < 0x100) return push(0xcc, v);
          if (v < 0x10000) { b[0] = 0xcd; b.writeUInt16BE(v, 1); return parts.push(b.subarray(0, 3)); }
          if (v < 0x100000000) { b[0] = 0xce; b.writeUInt32BE(v, 1); return parts.push(b.subarray(0, 5)); }
          b[0] = 0xcf; b.writeBigUInt64BE(BigInt(v), 1); return parts.push(b);
        }
        if (v >= -0x80) { b[0] = 0xd0; b.writeInt8(v, 1); return parts.push(b.subarray(0, 2)); }
        if (v >= -0x8000) { b[0] = 0xd1; b.writeInt16BE(v, 1); return parts.push(b.subarray(0, 3)); }
        if (v >= -0x80000000) { b[0] = 0xd2; b.writeInt32BE(v, 1); return parts.push(b.subarray(0, 5)); }
        b[0] = 0xd3; b.writeBigInt64BE(BigInt(v), 1); return parts.push(b);
      }
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(v, 1);
      return parts.push(b);
    }
    if (typeof v === "string") {
      const bytes = utf8.encode(v);
      head(0xa0, 31, [0xd9, 0xda, 0xdb], bytes.length);
      return parts.push(Buffer.from(bytes));
    }
    if (v instanceof Uint8Array) {
      head(null, -1, [0xc4, 0xc5, 0xc6], v.length);
      return parts.push(Buffer.from(v));
    }
    if (Array.isArray(v)) {
      head(0x90, 15, [null, 0xdc, 0xdd], v.length);
      return v.forEach(walk);
    }
    if (typeof v === "object") {
      const keys = Object.keys(v).filter((k) => v[k] !== undefined);
      head(0x80, 15, [null, 0xde, 0xdf], keys.length);
      for (const k of keys) { walk(k); walk(v[k]); }
      return;
    }
    throw new MsgpackError(`cannot encode ${typeof v}`);
  };
  walk(value);
  return Buffer.concat(parts);
}

function decode(buf) {
  let pos = 0;
  const need = (n) => {
    if (pos + n > buf.length) throw new MsgpackError("truncated msgpack body");
  };
  const u8 = () => { need(1); return buf[pos++]; };
  const num = (reader, n) => { need(n); const v = buf[reader](pos); pos += n; return v; };
  const big = (reader) => {
    need(8);
    const v = buf[reader](pos);
    pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new MsgpackError(`integer beyond 2^53: ${v}`);
    }
    return Number(v);
  };
  const str = (n) => {
    need(n);
    const s = buf.subarray(pos, pos + n);
    pos += n;
    try { return utf8strict.decode(s); } catch { throw new MsgpackError("invalid UTF-8 in a str"); }
  };
  const bin = (n) => { need(n); const b = Buffer.from(buf.subarray(pos, pos + n)); pos += n; return b; };
  const arr = (n) => { const a = []; for (let i = 0; i < n; i++) a.push(item()); return a; };
  const map = (n) => {
    const m = Object.create(null);
    for (let i = 0; i < n; i++) {
      const k = item();
      if (typeof k !== "string") throw new MsgpackError(`non-string map key ${JSON.stringify(k)}`);
      m[k] = item();
    }
    return m;
  };
  const item = () => {
    const t = u8();
    if (t < 0x80) return t;
    if (t < 0x90) return map(t & 0x0f);
    if (t < 0xa0) return arr(t & 0x0f);
    if (t < 0xc0) return str(t & 0x1f);
    if (t >= 0xe0) return t - 0x100;
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return bin(num("readUInt8", 1));
      case 0xc5: return bin(num("readUInt16BE", 2));
      case 0xc6: return bin(num("readUInt32BE", 4));
      case 0xca: return num("readFloatBE", 4);
      case 0xcb: return num("readDoubleBE", 8);
      case 0xcc: return num("readUInt8", 1);
      case 0xcd: return num("readUInt16BE", 2);
      case 0xce: return num("readUInt32BE", 4);
      case 0xcf: return big("readBigUInt64BE");
      case 0xd0: return num("readInt8", 1);
      case 0xd1: return num("readInt16BE", 2);
      case 0xd2: return num("readInt32BE", 4);
      case 0xd3: return big("readBigInt64BE");
      case 0xd9: return str(num("readUInt8", 1));
      case 0xda: return str(num("readUInt16BE", 2));
      case 0xdb: return str(num("readUInt32BE", 4));
      case 0xdc: return arr(num("readUInt16BE", 2));
      case 0xdd: return arr(num("readUInt32BE", 4));
      case 0xde: return map(num("readUInt16BE", 2));
      case 0xdf: return map(num("readUInt32BE", 4));
      default:
        // 0xc1 is never used; c7-c9 and d4-d8 are extension types, which the
        // protocol does not allow.
        throw new MsgpackError(`msgpack type 0x${t.toString(16)} is not allowed`);
    }
  };
  const value = item();
  if (pos !== buf.length) throw new MsgpackError("trailing bytes after the msgpack body");
  return value;
}

// ---------------------------------------------------------------- the node --

const MAX_FRAME = 65536;
const PING_AFTER_MS = 1000; // send ping after 1 s without sending (section 3)
const DEAD_AFTER_MS = 4000; // drop when nothing received for 4 s (section 3)
const HOST_FRAME_MS = 5000; // wait this long for the host's first frame (section 4)
const PROTOCOL = 3;

// section 4: verifier = SHA-256("lanmatch-profile:" + key), proof = HMAC(verifier bytes, "lanmatch-hello:" + nonce)
// protocol 3: the profile's key at one host is HMAC(key, "lanmatch-host-key:" + the host's fingerprint)
const hostKey = (key, fp) => crypto.createHmac("sha256", Buffer.from(key, "utf8")).update(`lanmatch-host-key:${fp}`).digest("hex");
const verifierOf = (key) => crypto.createHash("sha256").update(`lanmatch-profile:${key}`).digest("hex");
const proofOf = (verifier, nonce) =>
  crypto.createHmac("sha256", Buffer.from(verifier, "hex")).update(`lanmatch-hello:${nonce}`).digest("hex");

// protocol.md section 5, "Deltas": the view message a delta makes of the held one (null: it does not fit)
function applyDelta(h, d) {
  const view = { ...h.view };
  for (const k of d.unset || []) delete view[k];
  Object.assign(view, d.set || {});
  if ((d.drop !== undefined || d.events !== undefined) && !(d.set && "events" in d.set)) {
    const old = Array.isArray(h.view.events) ? h.view.events : [];
    const drop = d.drop || 0;
    if (!Number.isInteger(drop) || drop < 0 || drop > old.length) return null;
    view.events = old.slice(drop).concat(d.events || []);
  }
  const out = { type: "view", room: d.room, state_id: d.state_id, view, vn: d.vn };
  for (const k of ["legal", "timers", "autopilot"]) out[k] = k in d ? d[k] : h[k];
  return out;
}

function usage(msg) {
  if (msg) process.stderr.write(`botnode: ${msg}\n`);
  process.stderr.write("usage: node botnode.mjs HOST:PORT [ROOM] [NAME] [--timeout S] [--drop-every K] [--probe] [--key KEY] [--full-views]\n");
  process.exit(2);
}

function parseArgs(argv) {
  const pos = [];
  const opts = { timeout: 120, dropEvery: 0, probe: false, key: null, fp: null, deltas: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--timeout") opts.timeout = Number(argv[++i]);
    else if (a === "--drop-every") opts.dropEvery = Number(argv[++i]);
    else if (a === "--probe") opts.probe = true;
    else if (a === "--full-views") opts.deltas = false; // no `deltas` in hello: full views only
    else if (a === "--key") opts.key = argv[++i];
    else if (a === "--fp") opts.fp = argv[++i];
    else if (a === "-h" || a === "--help") usage();
    else if (a.startsWith("--")) usage(`unknown option ${a}`);
    else pos.push(a);
  }
  if (pos.length < 1 || pos.length > 3) usage("need HOST:PORT");
  const m = /^(.+):(\d+)$/.exec(pos[0]);
  if (!m) usage(`bad address ${pos[0]}`);
  if (!(opts.timeout > 0)) usage("--timeout needs a positive number of seconds");
  if (!(Number.isInteger(opts.dropEvery) && opts.dropEvery >= 0)) usage("--drop-every needs an integer >= 0");
  return {
    host: m[1].replace(/^\[|\]$/g, ""),
    port: Number(m[2]),
    room: pos[1] || null,
    name: (pos[2] || "js bot").slice(0, 32),
    ...opts,
  };
}

// The decision rule: one of the host's legal actions, copied as is.
// Call a last card first (a bot is not penalised, but calling is free), then
// play (Color Match: prefer a non-wild; Dominoes: the heaviest tile), then name
// a color, then the rest in a fixed order. Never an action already refused at
// this state_id.
const ORDER = ["call", "play", "color", "catch", "accept", "draw", "keep", "pass", "challenge"];

function pips(tile) {
  return String(tile).split("-").reduce((s, p) => s + Number(p), 0);
}

function choose(legal, refused) {
  const options = legal.filter((a) => !refused.has(JSON.stringify(a)));
  if (options.length === 0) return null;
  const rank = (a) => {
    const i = ORDER.indexOf(a.type);
    return i < 0 ? ORDER.length : i;
  };
  const score = (a) => {
    if (a.type !== "play") return 0;
    if (a.tile !== undefined) return -pips(a.tile);
    if (typeof a.card === "string" && a.card.startsWith("W")) return 1;
    return 0;
  };
  let best = options[0];
  for (const a of options) {
    if (rank(a) < rank(best) || (rank(a) === rank(best) && score(a) < score(best))) best = a;
  }
  return best;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const sock = tls.connect({ host: args.host, port: args.port, rejectUnauthorized: false, minVersion: "TLSv1.3" });
  sock.setNoDelay(true);

  let inbuf = Buffer.alloc(0);
  let lastSeq = 0; // last seq received (section 2)
  let received = 0; // messages received, for --drop-every
  let lastSent = Date.now();
  let lastRecv = Date.now();
  let finished = false;
  let state = "host"; // host -> hello -> finding -> seated -> done
  const where = `${args.host}:${args.port}`;
  const notLanmatch = (why) => finish(2, `${where} is not a lanmatch host (${why})`);
  let mySeat = null;
  let roomName = args.room;
  let answered = -1; // the highest state_id we answered
  let refused = new Map(); // state_id -> Set of JSON actions refused there
  let current = null; // the last view message (or snapshot's view)
  let lastView = null; // the last view we saw (for the outcome line)
  let game = null;
  let acts = 0;
  let resyncs = 0;
  let created = false;
  let probed = false;
  let probesPending = 0;
  const probeCodes = [];
  let lastAct = null; // {sid, action}: our last act, to remember a refusal
  let held = null; // deltas (protocol.md section 5, "Deltas"): the last view as sent, numbered `vn`
  let deltaGap = false; // a delta did not follow `held`: deltas passed over until a snapshot

  const finish = (code, line) => {
    if (finished) return;
    finished = true;
    clearInterval(tick);
    clearTimeout(deadline);
    clearTimeout(hostWait);
    if (code === 0) process.stdout.write(`${line}\n`);
    else process.stderr.write(`botnode: ${line}\n`);
    sock.end();
    sock.destroy();
    process.exitCode = code;
  };
  const fail = (msg) => finish(1, msg);

  const send = (msg) => {
    if (finished) return;
    let body;
    try { body = encode(msg); } catch (e) { return fail(`cannot encode ${msg.type}: ${e.message}`); }
    if (body.length > MAX_FRAME) return fail(`own frame too large (${body.length})`);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length, 0);
    sock.write(Buffer.concat([head, body]));
    lastSent = Date.now();
  };

  let hostWait = null;
  const deadline = setTimeout(() => fail(`timeout after ${args.timeout} s (state ${state}, seat ${mySeat}, ${acts} actions)`), args.timeout * 1000);
  const tick = setInterval(() => {
    if (state === "host") return; // nothing is sent before the host frame (hostWait bounds the wait)
    const now = Date.now();
    if (now - lastRecv > DEAD_AFTER_MS) return fail(`host silent for ${DEAD_AFTER_MS / 1000} s: connection dead`);
    if (now - lastSent >= PING_AFTER_MS) send({ type: "ping" });
  }, 100);

  const findRoom = (rooms) => {
    // rooms: list of summaries. A named room must exist; without a name take
    // the first open, password-free Color Match/Dominoes room with a free seat.
    if (roomName) {
      const r = rooms.find((x) => x.name === roomName);
      if (!r) return fail(`no room named ${JSON.stringify(roomName)} on this host`);
      if ((r.state === "open" || r.state === "over") && r.free > 0) return send({ type: "join", room: roomName, seat: null });
      // playing (or full): try again shortly; seats open again after the game
      return setTimeout(() => send({ type: "list" }), 300);
    }
    const r = rooms.find((x) => (x.state === "open" || x.state === "over") && x.free > 0 && !x.password && (x.kind ?? "practice") === "practice");
    if (r) {
      roomName = r.name;
      return send({ type: "join", room: roomName, seat: null });
    }
    roomName = `js-${process.pid}`;
    created = true;
    return send({ type: "create", room: roomName, game: "colormatch", seats: 2 });
  };

  const outcomeLine = (vmsg) => {
    const v = vmsg.view;
    const o = v.outcome;
    const winners = o.winners || [];
    const result = winners.length === 0 ? "draw" : winners.includes(mySeat) ? (winners.length > 1 ? "shared win" : "won") : "lost";
    return `outcome room=${vmsg.room} game=${v.game ?? game ?? "?"} table=${v.table ?? "-"} seat=${mySeat} `
      + `result=${result} winners=${JSON.stringify(winners)} points=${JSON.stringify(o.points ?? null)} `
      + `reason=${o.reason ?? "?"} actions=${acts} resyncs=${resyncs}`
      + (args.probe ? ` probes=${probeCodes.join(",") || "none"}` : "");
  };

  const onView = (vmsg) => {
    // vmsg: a `view` message, or a snapshot's `view` (same fields, no type/seq)
    if (!vmsg || typeof vmsg.view !== "object" || vmsg.view === null) return fail("a view without `view`");
    if (!Number.isInteger(vmsg.state_id)) return fail("a view without an integer state_id");
    if (!Array.isArray(vmsg.legal)) return fail("a view without a `legal` list");
    current = vmsg;
    lastView = vmsg;
    if (vmsg.view.seat !== undefined && vmsg.view.seat !== null) mySeat = vmsg.view.seat;
    if (vmsg.view.outcome) return finish(0, outcomeLine(vmsg));
    maybeAct();
  };

  const maybeAct = () => {
    const v = current;
    if (!v || v.legal.length === 0) return;
    const sid = v.state_id;
    const tried = refused.get(sid) || new Set();
    if (sid <= answered && !refused.has(sid)) return; // answer each state_id once
    const action = choose(v.legal, tried);
    if (!action) return; // everything refused: wait for the next view
    answered = Math.max(answered, sid);
    if (args.probe && !probed && sid > 0) { // state_id is 0..2^53: no stale probe at 0
      probed = true;
      probesPending = 2;
      send({ type: "act", state_id: sid - 1, action });
      const odd = v.legal.some((a) => a.type === "challenge") ? { type: "call" } : { type: "challenge" };
      send({ type: "act", state_id: sid, action: odd });
    }
    acts++;
    lastAct = { sid, action };
    if (process.env.BOTNODE_DEBUG) process.stderr.write(`act ${sid} ${JSON.stringify(action)} hand=${JSON.stringify(v.view.hand)} top=${v.view.top ?? JSON.stringify(v.view.ends)} phase=${v.view.phase} legal=${JSON.stringify(v.legal)}\n`);
    send({ type: "act", state_id: sid, action });
    current = null;
  };

  const handle = (msg) => {
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return fail("a frame that is not a map");
    if (typeof msg.type !== "string") return fail("a message without a string `type`");
    if (state === "host" && msg.type !== "host") return notLanmatch(`it sent something else: a ${JSON.stringify(msg.type).slice(0, 40)} message first`);
    if (!Number.isInteger(msg.seq)) return fail(`a ${msg.type} without an integer seq`);
    received++;
    if (args.dropEvery > 0 && msg.seq > 1 && received % args.dropEvery === 0 && (msg.type === "view" || msg.type === "delta")
        && !(msg.view && msg.view.outcome) && !(msg.set && msg.set.outcome)) {
      return; // test hook: pretend this one never arrived (the next one shows a gap)
    }
    if (msg.seq !== lastSeq + 1) {
      if (lastSeq === 0) return fail(`first message has seq ${msg.seq}, expected 1`);
      // section 2: a gap -> resync, and keep the new number as the last
      resyncs++;
      send({ type: "resync" });
    }
    lastSeq = msg.seq;

    switch (msg.type) {
      case "ping":
        return; // receiving it is the point; our own pings go out on idle
      case "host": {
        if (state !== "host") return fail("a second host frame");
        if (!Array.isArray(msg.versions) || !msg.versions.includes(PROTOCOL)) {
          return finish(2, `${msg.name} speaks lanmatch protocol ${msg.protocol}; this lanmatch speaks ${PROTOCOL}: update the older side`);
        }
        if (typeof msg.nonce !== "string" || !/^[0-9a-f]{32}$/.test(msg.nonce)) return fail("a host frame without a nonce");
        clearTimeout(hostWait);
        state = "hello";
        const hello = { type: "hello", protocol: PROTOCOL, name: args.name, agent: "bot", client: "lanmatch js botnode 3" };
        if (args.deltas) hello.deltas = true;
        if (args.key) {
          verifier = verifierOf(hostKey(args.key, fingerprint));
          hello.profile = { name: args.name, proof: proofOf(verifier, msg.nonce) };
        }
        return send(hello);
      }
      case "bye":
        return finish(1, `the host left: ${msg.reason}`);
      case "profile":
        return undefined; // our profile was registered (section 4)
      case "welcome":
        if (state !== "hello") return fail("a second welcome");
        if (msg.protocol !== PROTOCOL) return fail(`host speaks protocol ${msg.protocol}`);
        state = "finding";
        return send({ type: "list" });
      case "error":
        if (msg.fatal) return fail(`fatal error ${msg.code}: ${msg.message}`);
        if (msg.code === "unknown_profile" && verifier) {
          return send({ type: "register", profile: { name: args.name, verifier } });
        }
        if (state === "finding" && (msg.code === "started" || msg.code === "room_full" || msg.code === "seat_taken")) {
          // the room dealt before we sat: wait for it to open again
          return setTimeout(() => send({ type: "list" }), 300);
        }
        if (state === "finding" && msg.code === "room_exists" && created) {
          created = false;
          return send({ type: "list" });
        }
        return fail(`error ${msg.code} (ref ${msg.ref}): ${msg.message}`);
      case "rooms":
        if (state !== "finding") return undefined;
        if (!Array.isArray(msg.rooms)) return fail("`rooms` without a list");
        return findRoom(msg.rooms);
      case "seated":
        state = "seated";
        mySeat = msg.seat;
        roomName = msg.room;
        if (created) send({ type: "start" });
        return undefined;
      case "watching":
        return fail("watching, not seated");
      case "room":
        if (msg.room && msg.room.game) game = msg.room.game;
        return undefined;
      case "left":
        return fail(`left the room: ${msg.reason}`);
      case "view":
        held = msg;
        deltaGap = false;
        if (state !== "seated") return undefined;
        return onView(msg);
      case "delta": {
        const next = held && !deltaGap && msg.vn === held.vn + 1 && msg.room === held.room ? applyDelta(held, msg) : null;
        if (!next) {
          if (!deltaGap) { // a gap: keep the held view, ask for a snapshot once
            deltaGap = true;
            resyncs++;
            send({ type: "resync" });
          }
          return undefined;
        }
        held = next;
        if (state !== "seated") return undefined;
        return onView(held);
      }
      case "snapshot":
        if (msg.seat !== null && msg.seat !== undefined) mySeat = msg.seat;
        held = msg.view || null;
        deltaGap = false;
        if (msg.view) return onView(msg.view);
        return undefined;
      case "rejected":
        if (probesPending > 0) {
          probesPending--;
          probeCodes.push(msg.code);
          return undefined;
        }
        // stale: a newer view is on its way. Otherwise remember the refusal
        // and ask for the whole state again, then try another legal action.
        if (msg.code === "stale") return undefined;
        if (["not_your_turn", "illegal"].includes(msg.code)) {
          if (lastAct) {
            const set = refused.get(lastAct.sid) || new Set();
            set.add(JSON.stringify(lastAct.action));
            refused.set(lastAct.sid, set);
          }
          resyncs++;
          return send({ type: "resync" });
        }
        if (msg.code === "over") return undefined; // the outcome view follows
        return fail(`act rejected: ${msg.code}: ${msg.reason}`);
      case "coins":
        return undefined;
      default:
        return undefined; // a newer host may add message types: ignore
    }
  };

  let verifier = null;
  let fingerprint = null;
  let secure = false;
  // no TLS within the host wait: not a lanmatch host (a silent port)
  hostWait = setTimeout(() => notLanmatch(`it did not answer as one within ${HOST_FRAME_MS / 1000} s`), HOST_FRAME_MS);
  sock.on("secureConnect", () => {
    secure = true;
    fingerprint = crypto.createHash("sha256").update(sock.getPeerCertificate().raw).digest("hex");
    if (args.fp && args.fp !== fingerprint) {
      return finish(2, `${where} showed certificate ${fingerprint}, not the pinned ${args.fp}: refused, nothing sent`);
    }
    // say nothing before the host's `host` frame (section 4)
    clearTimeout(hostWait);
    hostWait = setTimeout(() => notLanmatch(`it did not answer as one within ${HOST_FRAME_MS / 1000} s`), HOST_FRAME_MS);
  });
  sock.on("data", (chunk) => {
    lastRecv = Date.now();
    inbuf = inbuf.length ? Buffer.concat([inbuf, chunk]) : chunk;
    while (!finished && inbuf.length >= 4) {
      const n = inbuf.readUInt32BE(0);
      if (n === 0 || n > MAX_FRAME) {
        return state === "host" ? notLanmatch("it sent something else: not a lanmatch frame") : fail(`host sent a frame length of ${n}`);
      }
      if (inbuf.length < 4 + n) break;
      const body = inbuf.subarray(4, 4 + n);
      inbuf = inbuf.subarray(4 + n);
      let msg;
      try { msg = decode(body); } catch (e) {
        return state === "host" ? notLanmatch("it sent something else: not a lanmatch frame") : fail(`bad frame from host: ${e.message}`);
      }
      handle(msg);
    }
    return undefined;
  });
  sock.on("error", (e) => (secure ? fail(`connection error: ${e.message}`)
    : notLanmatch("it does not speak TLS 1.3, as every lanmatch host does")));
  sock.on("close", () => fail(`connection closed by the host (state ${state}, last seq ${lastSeq})`));
}

main();

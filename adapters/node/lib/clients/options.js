'use strict';
// hello's `options` of a client (docs/bridge-protocol.md, "hello").
//
// Contract: parseOptions(client, given, spec) checks `given` (an object of
// strings) against spec {key: {values: [allowed strings] | {test, what}, dflt}}
// (values may instead be a RegExp-like {test(v), what: 'a count'}) and returns
// {key: value} with the defaults filled in; an unknown key or a value not
// allowed throws AdapterError "config" listing what is known.

const { AdapterError } = require('../errors');

function parseOptions(client, given, spec) {
    if (typeof given !== 'object' || Array.isArray(given)) {
        throw new AdapterError('config', `options of client ${client} must be an object of strings`);
    }
    const known = Object.keys(spec);
    const out = {};
    for (const key of Object.keys(given)) {
        if (!Object.prototype.hasOwnProperty.call(spec, key)) {
            throw new AdapterError('config', `client ${client} has no option ${JSON.stringify(key)} ` +
                `(it knows: ${known.length ? known.join(', ') : 'none'})`);
        }
        const v = given[key];
        const allowed = spec[key].values;
        const list = Array.isArray(allowed);
        if (typeof v !== 'string' || (list ? !allowed.includes(v) : !allowed.test(v))) {
            throw new AdapterError('config', `option ${key} of client ${client} must be ` +
                `${list ? `one of ${allowed.join(', ')}` : allowed.what}, not ${JSON.stringify(v)}`);
        }
        out[key] = v;
    }
    for (const key of known) if (!(key in out)) out[key] = spec[key].dflt;
    return out;
}

module.exports = { parseOptions };

"""Redfish error bodies for the resources our backend adds to sushy-tools.

sushy-tools answers every failure with a bare ``Base.1.0.GeneralError`` and
a message.  A real BMC also says *which* property or value it refused, in
``@Message.ExtendedInfo``; sushy surfaces that (``HTTPError.detail``,
``related_properties``) and the redfish hardware type's error messages
depend on it.  Our resources raise :class:`RedfishError`, which the server
renders in that fuller shape (one handler, registered in ``server.py``).

This module owns the error shape and the few message kinds the emulator
uses; it never decides *when* a request is wrong.
"""

import flask
from sushy_tools import error as stock_error

BASE = 'Base.1.8.'


def error_body(message, message_id=BASE + 'GeneralError', args=(),
               related=(), severity='Warning'):
    """The JSON body of a Redfish error response.

    ``severity`` is Warning for the client's mistakes and Critical for the
    service's own failures: sushy picks the message of the most severe
    entry as the error's detail.
    """
    return {'error': {
        'code': BASE + 'GeneralError',
        'message': message,
        '@Message.ExtendedInfo': [{
            '@odata.type': '#Message.v1_1_1.Message',
            'MessageId': message_id,
            'Message': message,
            'MessageArgs': [str(arg) for arg in args],
            'RelatedProperties': list(related),
            'Severity': severity,
            'Resolution': ('Correct the request and resubmit it.'
                           if severity == 'Warning' else
                           'Retry the operation; if it fails again, '
                           'contact the service provider.'),
        }],
    }}


class RedfishError(stock_error.FishyError):
    """A refusal that names what was wrong, as a Redfish error body."""

    def __init__(self, message, code=400, message_id='GeneralError',
                 args=(), related=()):
        super().__init__(message, code)
        self.message = message
        self.message_id = BASE + message_id
        self.message_args = tuple(args)
        self.related = tuple(related)

    def body(self):
        return error_body(self.message, self.message_id, self.message_args,
                          self.related,
                          'Critical' if self.code >= 500 else 'Warning')


def render(exc):
    """Flask error handler for :class:`RedfishError`."""
    return flask.jsonify(exc.body()), exc.code


def property_missing(name, resource):
    return RedfishError(
        '%s requires the property %s, which the request lacks.'
        % (resource, name), message_id='PropertyMissing', args=[name],
        related=['#/%s' % name])


def value_not_in_list(name, value, allowed):
    return RedfishError(
        'The value %r for the property %s is not one of: %s.'
        % (value, name, ', '.join(map(str, allowed))),
        message_id='PropertyValueNotInList', args=[value, name],
        related=['#/%s' % name])


def request_body():
    """The request's JSON object, or a 400 naming what is wrong with it."""
    body = flask.request.get_json(silent=True)
    if not isinstance(body, dict):
        raise RedfishError('The request body must be a JSON object.',
                           message_id='MalformedJSON')
    return body

import warnings

# oslo.versionedobjects imports oslo.messaging, which imports oslo.service,
# which imports eventlet and makes it warn that it is deprecated.  We run on
# threads and never use eventlet; the warning would only mislead operators.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

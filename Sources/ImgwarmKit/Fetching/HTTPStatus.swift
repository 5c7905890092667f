/// Reason phrases for messages.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 407: return "Proxy Authentication Required"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 429: return "Too Many Requests"
        case 451: return "Unavailable For Legal Reasons"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return (300...399).contains(status) ? "(redirect not followed)" : ""
        }
    }
}

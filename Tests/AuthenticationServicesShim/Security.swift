// The Security (keychain) API surface KeychainTokenStore uses, declared for Linux with an
// in-memory keychain behind it, so that the store's queries run in tests here. Each
// declaration names its Apple documentation page.
import Foundation

/// https://developer.apple.com/documentation/security/osstatus
public typealias OSStatus = Int32
/// https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = String
/// https://developer.apple.com/documentation/corefoundation/cfdictionary
public typealias CFDictionary = [String: Any]
/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject

/// https://developer.apple.com/documentation/security/errsecsuccess
public let errSecSuccess: OSStatus = 0
/// https://developer.apple.com/documentation/security/errsecitemnotfound
public let errSecItemNotFound: OSStatus = -25300
/// https://developer.apple.com/documentation/security/errsecduplicateitem
public let errSecDuplicateItem: OSStatus = -25299
/// https://developer.apple.com/documentation/security/errsecparam
public let errSecParam: OSStatus = -50

/// https://developer.apple.com/documentation/security/ksecclass
public let kSecClass: CFString = "class"
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword
public let kSecClassGenericPassword: CFString = "genp"
/// https://developer.apple.com/documentation/security/ksecattrservice
public let kSecAttrService: CFString = "svce"
/// https://developer.apple.com/documentation/security/ksecattraccount
public let kSecAttrAccount: CFString = "acct"
/// https://developer.apple.com/documentation/security/ksecattraccessgroup
public let kSecAttrAccessGroup: CFString = "agrp"
/// https://developer.apple.com/documentation/security/ksecattraccessible
public let kSecAttrAccessible: CFString = "pdmn"
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// https://developer.apple.com/documentation/security/ksecvaluedata
public let kSecValueData: CFString = "v_Data"
/// https://developer.apple.com/documentation/security/ksecreturndata
public let kSecReturnData: CFString = "r_Data"
/// https://developer.apple.com/documentation/security/ksecmatchlimit
public let kSecMatchLimit: CFString = "m_Limit"
/// https://developer.apple.com/documentation/security/ksecmatchlimitone
public let kSecMatchLimitOne: CFString = "m_LimitOne"

/// The in-memory keychain behind the shim: generic passwords keyed by service, account and
/// access group.
public enum ShimKeychain {
    fileprivate struct Key: Hashable {
        let service: String
        let account: String
        let group: String
    }

    nonisolated(unsafe) private static var items: [Key: Data] = [:]
    private static let lock = NSLock()
    /// Shim only: the access group items land in when a query names none (an app's default).
    nonisolated(unsafe) public static var defaultAccessGroup = "TEAMID.app.default"

    /// Shim only: how many items the keychain holds.
    public static var count: Int { lock.withLock { items.count } }

    /// Shim only: forgets every item.
    public static func reset() { lock.withLock { items.removeAll() } }

    fileprivate static func key(_ query: CFDictionary) -> Key? {
        guard query[kSecClass] as? String == kSecClassGenericPassword, let service = query[kSecAttrService] as? String,
            let account = query[kSecAttrAccount] as? String
        else { return nil }
        return Key(service: service, account: account, group: query[kSecAttrAccessGroup] as? String ?? defaultAccessGroup)
    }

    fileprivate static func with<T>(_ body: (inout [Key: Data]) -> T) -> T { lock.withLock { body(&items) } }
}

/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    guard let key = ShimKeychain.key(attributes), let data = attributes[kSecValueData] as? Data else { return errSecParam }
    return ShimKeychain.with { items in
        guard items[key] == nil else { return errSecDuplicateItem }
        items[key] = data
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    guard let key = ShimKeychain.key(query) else { return errSecParam }
    return ShimKeychain.with { items in
        guard let data = items[key] else { return errSecItemNotFound }
        if query[kSecReturnData] as? Bool == true { result?.pointee = NSData(data: data) }
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    guard let key = ShimKeychain.key(query), let data = attributesToUpdate[kSecValueData] as? Data else { return errSecParam }
    return ShimKeychain.with { items in
        guard items[key] != nil else { return errSecItemNotFound }
        items[key] = data
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemdelete(_:)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    guard let key = ShimKeychain.key(query) else { return errSecParam }
    return ShimKeychain.with { items in items.removeValue(forKey: key) == nil ? errSecItemNotFound : errSecSuccess }
}

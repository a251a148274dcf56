// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title SettlementContract
/// @notice Moves ERC-2612 stablecoins from a payer to a recipient on a relayer-submitted, payer-signed
/// permit, charges a base fee plus an optional acquirer fee into internal balances, and sells acquirer
/// registrations ("acquiring packs"). Interface of the public Stablecoin Stack settlement contract (SPEC §1).
/// @dev Every failure is a custom error declared below so that callers and tests can match it exactly.
/// Ownership moves in two steps (`transferOwnership` names a pending owner, who must `acceptOwnership`),
/// so a mistyped address or a Safe that cannot sign never ends up owning the contract.
contract SettlementContract is Ownable2Step, ReentrancyGuard, EIP712 {
    using SafeERC20 for IERC20;

    /// @dev 10000 basis points = 100 %.
    uint256 public constant FEE_DENOMINATOR = 10_000;

    bytes32 private constant PERMIT_PARAMS_TYPE =
        keccak256("PermitParams(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant PAY_WITH_PERMIT_TYPE = keccak256(
        "PayWithPermitParams(address token,address beneficiary,bytes32 ref,PermitParams permitParams)"
        "PermitParams(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"
    );
    bytes32 private constant BUY_ACQUIRING_PACK_TYPE = keccak256(
        "BuyAcquiringPackPermitParams(address token,uint256 feeValue,address acquiring,PermitParams permitParams)"
        "PermitParams(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"
    );

    struct Acquirer {
        address wallet;
        uint256 feePercent;
    }

    /// @dev The permit and binding signatures travel together; a struct keeps the stack shallow.
    struct Signatures {
        uint8 v1;
        bytes32 r1;
        bytes32 s1;
        uint8 v2;
        bytes32 r2;
        bytes32 s2;
    }

    uint256 public baseFeeAmount;
    uint256 public maxAcquiringFee;
    uint256 public acquiringPrice;
    address public feeRecipient;
    mapping(bytes32 digest => bool used) public usedHashes;
    mapping(address token => bool allowed) public acquiringAllowedTokens;

    mapping(bytes16 acquirerId => Acquirer) private acquirers;
    mapping(address token => mapping(address holder => uint256 amount)) private balances;
    uint256 private acquirerCount;

    event PermittedTransfer(
        bytes32 indexed domainSeparator,
        address indexed token,
        address indexed payer,
        address recipient,
        uint256 value,
        uint256 fee,
        bytes32 orderReference
    );
    event AcquirerCreated(bytes16 indexed acquirerId, address indexed wallet, uint256 feePercent);
    event CommissionGenerated(bytes16 indexed acquirerId, uint256 amount);
    event AcquiringFeeUpdated(address indexed acquiring, uint256 feePercent);
    event Withdrawal(address indexed owner, address indexed beneficiary, uint256 amount);
    event BaseFeeAmountUpdated(uint256 baseFeeAmount);
    event AcquiringPriceUpdated(uint256 acquiringPrice);
    event MaxAcquiringFeeUpdated(uint256 maxAcquiringFee);
    event FeeRecipientUpdated(address indexed feeRecipient);
    event AcquiringAllowedTokenAdded(address indexed token);

    error DeadlineExpired(uint256 deadline);
    error HashAlreadyUsed(bytes32 digest);
    error InvalidBindingSigner(address signer, address expected);
    error PermitFailed();
    error InsufficientBalance(uint256 balance, uint256 needed);
    error AmountBelowBaseFee(uint256 amount, uint256 baseFeeAmount);
    error UnknownAcquirer(bytes16 acquirerId);
    error TokenNotAllowed(address token);
    error FeePercentTooHigh(uint256 feePercent, uint256 maxAcquiringFee);
    error PriceMismatch(uint256 price, uint256 acquiringPrice);
    error NotAcquirerWallet(bytes16 acquirerId, address caller);
    error InsufficientInternalBalance(uint256 balance, uint256 requested);
    error ZeroAddress();
    error ZeroAmount();

    constructor(
        uint256 baseFeeAmount_,
        uint256 maxAcquiringFee_,
        uint256 acquiringPrice_,
        address feeRecipient_,
        address[] memory allowedTokens_
    ) Ownable(msg.sender) EIP712("SettlementContract", "1") {
        if (maxAcquiringFee_ > FEE_DENOMINATOR) revert FeePercentTooHigh(maxAcquiringFee_, FEE_DENOMINATOR);
        if (feeRecipient_ == address(0)) revert ZeroAddress();
        baseFeeAmount = baseFeeAmount_;
        maxAcquiringFee = maxAcquiringFee_;
        acquiringPrice = acquiringPrice_;
        feeRecipient = feeRecipient_;
        for (uint256 i = 0; i < allowedTokens_.length; i++) {
            _allowToken(allowedTokens_[i]);
        }
    }

    // ---------------------------------------------------------------- payments

    /// @notice Settles a payment: `amount` (fees included) is pulled from `tokenOwner` with the permit
    /// (v1,r1,s1); the binding signature (v2,r2,s2) by `tokenOwner` fixes token, recipient and `ref`.
    function transferWithPermit(
        IERC20Permit token,
        address tokenOwner,
        uint256 amount,
        uint256 deadline,
        uint8 v1,
        bytes32 r1,
        bytes32 s1,
        uint8 v2,
        bytes32 r2,
        bytes32 s2,
        address recipient,
        bytes32 ref
    ) external nonReentrant {
        if (recipient == address(0)) revert ZeroAddress();
        Signatures memory sigs = Signatures(v1, r1, s1, v2, r2, s2);
        bytes32 permitHash = _permitParamsHash(token, tokenOwner, amount, deadline);
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(PAY_WITH_PERMIT_TYPE, address(token), recipient, ref, permitHash))
        );
        _useBindingSignature(digest, tokenOwner, sigs);
        (uint256 principal, uint256 fee) = breakdownTransferAmount(amount, bytes16(uint128(uint256(ref))));
        _pullWithPermit(token, tokenOwner, amount, deadline, sigs);
        _distributeFee(address(token), fee, bytes16(uint128(uint256(ref))));
        IERC20(address(token)).safeTransfer(recipient, principal);
        emit PermittedTransfer(token.DOMAIN_SEPARATOR(), address(token), tokenOwner, recipient, principal, fee, ref);
    }

    /// @notice Registers `acquiring` as an acquirer charging `feePercent` basis points, paid by `payer`
    /// with `price` (= `acquiringPrice`) of an allowed token. Returns the new, never-zero acquirer id.
    function buyAcquiringPack(
        IERC20Permit token,
        address payer,
        address acquiring,
        uint256 feePercent,
        uint256 price,
        uint256 deadline,
        uint8 v1,
        bytes32 r1,
        bytes32 s1,
        uint8 v2,
        bytes32 r2,
        bytes32 s2
    ) external nonReentrant returns (bytes16 acquirerId) {
        if (!acquiringAllowedTokens[address(token)]) revert TokenNotAllowed(address(token));
        if (acquiring == address(0)) revert ZeroAddress();
        if (feePercent > maxAcquiringFee) revert FeePercentTooHigh(feePercent, maxAcquiringFee);
        if (price != acquiringPrice) revert PriceMismatch(price, acquiringPrice);
        Signatures memory sigs = Signatures(v1, r1, s1, v2, r2, s2);
        bytes32 permitHash = _permitParamsHash(token, payer, price, deadline);
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(BUY_ACQUIRING_PACK_TYPE, address(token), feePercent, acquiring, permitHash))
        );
        _useBindingSignature(digest, payer, sigs);
        _pullWithPermit(token, payer, price, deadline, sigs);
        balances[address(token)][feeRecipient] += price;

        acquirerId = _freshAcquirerId(acquiring);
        acquirers[acquirerId] = Acquirer(acquiring, feePercent);
        emit AcquirerCreated(acquirerId, acquiring, feePercent);
    }

    /// @notice Lets an acquirer's wallet change its own fee, within `maxAcquiringFee`.
    function updateAcquiringFee(bytes16 acquirerId, uint256 feePercent) external {
        Acquirer storage acquirer = acquirers[acquirerId];
        if (acquirer.wallet == address(0) || acquirer.wallet != msg.sender) {
            revert NotAcquirerWallet(acquirerId, msg.sender);
        }
        if (feePercent > maxAcquiringFee) revert FeePercentTooHigh(feePercent, maxAcquiringFee);
        acquirer.feePercent = feePercent;
        emit AcquiringFeeUpdated(msg.sender, feePercent);
    }

    /// @notice Takes `amount` of `token` out of the caller's internal balance (fees, commissions).
    function withdraw(address token, uint256 amount) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        uint256 balance = balances[token][msg.sender];
        if (balance < amount) revert InsufficientInternalBalance(balance, amount);
        balances[token][msg.sender] = balance - amount;
        IERC20(token).safeTransfer(msg.sender, amount);
        emit Withdrawal(msg.sender, msg.sender, amount);
    }

    // ---------------------------------------------------------------- fee math

    /// @notice Total fee for a payment of `principal`: base fee + principal * acquirer bps / 10000 (rounded down).
    function calculateFees(uint256 principal, bytes16 acquirerId) public view returns (uint256 totalFee) {
        return baseFeeAmount + (principal * _feePercent(acquirerId)) / FEE_DENOMINATOR;
    }

    /// @notice Inverse of `calculateFees`: the largest principal P with P + calculateFees(P) <= total;
    /// the rest is fee. For every P, breakdownTransferAmount(P + calculateFees(P)) returns P exactly.
    function breakdownTransferAmount(uint256 totalWithFees, bytes16 acquirerId)
        public
        view
        returns (uint256 principal, uint256 totalFees)
    {
        uint256 base = baseFeeAmount;
        if (totalWithFees < base) revert AmountBelowBaseFee(totalWithFees, base);
        uint256 percent = _feePercent(acquirerId);
        uint256 rest = totalWithFees - base;
        principal = (rest * FEE_DENOMINATOR) / (FEE_DENOMINATOR + percent);
        // Rounding down the acquirer fee can leave room for exactly one more unit of principal.
        uint256 next = principal + 1;
        if (next + (next * percent) / FEE_DENOMINATOR <= rest) principal = next;
        totalFees = totalWithFees - principal;
    }

    // ---------------------------------------------------------------- reads

    function getBalances(address token, address[] calldata holders) external view returns (uint256[] memory result) {
        result = new uint256[](holders.length);
        for (uint256 i = 0; i < holders.length; i++) {
            result[i] = balances[token][holders[i]];
        }
    }

    /// @notice Balances as a matrix: result[i][j] is holder j's balance of token i.
    function getBalances(address[] calldata tokens, address[] calldata holders)
        external
        view
        returns (uint256[][] memory result)
    {
        result = new uint256[][](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            result[i] = new uint256[](holders.length);
            for (uint256 j = 0; j < holders.length; j++) {
                result[i][j] = balances[tokens[i]][holders[j]];
            }
        }
    }

    function getAcquiringWallet(bytes16 acquirerId) external view returns (address) {
        return acquirers[acquirerId].wallet;
    }

    /// @notice The fee the acquirer chose; `calculateFees` applies at most `maxAcquiringFee` of it.
    function getAcquiringFee(bytes16 acquirerId) external view returns (uint256) {
        return acquirers[acquirerId].feePercent;
    }

    // ---------------------------------------------------------------- admin

    function setBaseFeeAmount(uint256 newBaseFeeAmount) external onlyOwner {
        baseFeeAmount = newBaseFeeAmount;
        emit BaseFeeAmountUpdated(newBaseFeeAmount);
    }

    function setAcquiringPrice(uint256 newAcquiringPrice) external onlyOwner {
        acquiringPrice = newAcquiringPrice;
        emit AcquiringPriceUpdated(newAcquiringPrice);
    }

    function setMaxAcquiringFee(uint256 newMaxAcquiringFee) external onlyOwner {
        if (newMaxAcquiringFee > FEE_DENOMINATOR) revert FeePercentTooHigh(newMaxAcquiringFee, FEE_DENOMINATOR);
        maxAcquiringFee = newMaxAcquiringFee;
        emit MaxAcquiringFeeUpdated(newMaxAcquiringFee);
    }

    /// @dev Only future fees go to the new recipient; the old one keeps (and can withdraw) what it holds.
    function setFeeRecipient(address newFeeRecipient) external onlyOwner {
        if (newFeeRecipient == address(0)) revert ZeroAddress();
        feeRecipient = newFeeRecipient;
        emit FeeRecipientUpdated(newFeeRecipient);
    }

    function addAcquiringAllowedToken(address token) external onlyOwner {
        _allowToken(token);
    }

    // ---------------------------------------------------------------- internals

    function _allowToken(address token) private {
        if (token == address(0)) revert ZeroAddress();
        acquiringAllowedTokens[token] = true;
        emit AcquiringAllowedTokenAdded(token);
    }

    /// @dev The permit nonce is read here, so a binding signature is only valid with the very permit it names.
    function _permitParamsHash(IERC20Permit token, address owner, uint256 value, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        if (block.timestamp > deadline) revert DeadlineExpired(deadline);
        return keccak256(
            abi.encode(PERMIT_PARAMS_TYPE, owner, address(this), value, token.nonces(owner), deadline)
        );
    }

    function _useBindingSignature(bytes32 digest, address expected, Signatures memory sigs) private {
        if (usedHashes[digest]) revert HashAlreadyUsed(digest);
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, sigs.v2, sigs.r2, sigs.s2);
        if (err != ECDSA.RecoverError.NoError || signer != expected) revert InvalidBindingSigner(signer, expected);
        usedHashes[digest] = true;
    }

    function _pullWithPermit(IERC20Permit token, address owner, uint256 value, uint256 deadline, Signatures memory sigs)
        private
    {
        try token.permit(owner, address(this), value, deadline, sigs.v1, sigs.r1, sigs.s1) {}
        catch {
            revert PermitFailed();
        }
        uint256 balance = IERC20(address(token)).balanceOf(owner);
        if (balance < value) revert InsufficientBalance(balance, value);
        IERC20(address(token)).safeTransferFrom(owner, address(this), value);
    }

    function _distributeFee(address token, uint256 fee, bytes16 acquirerId) private {
        uint256 base = baseFeeAmount;
        balances[token][feeRecipient] += base;
        if (acquirerId == bytes16(0)) return;
        // The acquirer gets the rest of the fee, i.e. its percentage (breakdown rounding included).
        uint256 commission = fee - base;
        balances[token][acquirers[acquirerId].wallet] += commission;
        emit CommissionGenerated(acquirerId, commission);
    }

    /// @dev Zero means "no acquirer"; the effective fee never exceeds the current `maxAcquiringFee`,
    /// so lowering the maximum protects payers immediately.
    function _feePercent(bytes16 acquirerId) private view returns (uint256) {
        if (acquirerId == bytes16(0)) return 0;
        Acquirer storage acquirer = acquirers[acquirerId];
        if (acquirer.wallet == address(0)) revert UnknownAcquirer(acquirerId);
        uint256 max = maxAcquiringFee;
        return acquirer.feePercent < max ? acquirer.feePercent : max;
    }

    /// @dev Hash-derived ids are unguessable-looking and unique; the loop only guards the astronomically
    /// unlikely zero or colliding value.
    function _freshAcquirerId(address acquiring) private returns (bytes16 id) {
        do {
            acquirerCount++;
            id = bytes16(keccak256(abi.encode(block.chainid, address(this), acquiring, acquirerCount)));
        } while (id == bytes16(0) || acquirers[id].wallet != address(0));
    }
}
